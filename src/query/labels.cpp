#include "query/labels.h"

#include "util/format.h"

namespace goheap::query {

std::string labelText(const analysis::NodeLabel& label) {
  if (label.kind == "object") {
    // A guess is never shown as a fact.
    const char* inferred = label.type_evidence == "inferred" ? " (inferred)" : "";
    return label.name + inferred + " @" + formatHex(label.address);
  }
  if (label.kind == "none") return "(none)";
  return label.name;
}

void writeLabel(JsonWriter& w, const analysis::NodeLabel& label) {
  w.beginObject();
  w.field("kind", label.kind);
  w.field("name", label.name);
  if (label.kind == "object") {
    w.field("source", label.source);
    if (!label.type_evidence.empty()) w.field("type_evidence", label.type_evidence);
    w.field("address", formatHex(label.address));
  }
  if (!label.global.empty()) {
    w.field("global", label.global).field("global_offset", label.global_offset);
  }
  if (label.node != kNoNode) w.field("node", label.node);
  w.endObject();
}

void writePathSteps(JsonWriter& w, const analysis::Path& path) {
  w.beginArray();
  for (const analysis::PathStep& step : path.steps) {
    w.beginObject();
    w.key("node");
    writeLabel(w, step.node);
    if (step.offset) {
      w.field("offset", *step.offset);
      w.field("slot_address", formatHex(step.slot_address));
      if (!step.field.empty()) w.field("field", step.field);
    }
    w.endObject();
  }
  w.endArray();
}

}  // namespace goheap::query
