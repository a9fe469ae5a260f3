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
      out += "  +" + std::to_string(*step.offset);
      if (!step.field.empty()) out += " " + step.field;
      if (slot_addresses && step.slot_address != 0) {
        out += " (" + formatHex(step.slot_address) + ")";
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace goheap::questions
