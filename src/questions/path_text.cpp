#include "questions/path_text.h"

#include "query/labels.h"
#include "util/format.h"

namespace goheap::questions {

std::string pathStepsText(const analysis::Path& path, std::string_view indent,
                          bool slot_addresses) {
  std::string out;
  for (size_t j = 0; j < path.steps.size(); j++) {
    const analysis::PathStep& step = path.steps[j];
    out.append(indent).append(j == 0 ? "" : "-> ");
    out += query::labelText(step.node);
    if (step.offset) {
      // A global's name says where in it the word is ("global main.cache
      // +8"); the offset in the segment would read as one in the global.
      if (step.node.global.empty()) {
        out += "  +" + std::to_string(*step.offset);
        if (!step.field.empty()) out += " " + step.field;
      } else if (!step.field.empty()) {
        out += "  " + step.field;
      }
      if (slot_addresses && step.slot_address != 0) {
        out += " (" + formatHex(step.slot_address) + ")";
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace goheap::questions
