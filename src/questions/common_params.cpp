#include "questions/common_params.h"

#include "analysis/slots.h"
#include "util/format.h"

namespace goheap::questions {

query::ParamSpec limitParam(std::string_view fallback, std::string_view help) {
  return query::uintParam("limit", fallback, "N", help).withAlias('n');
}

query::ParamSpec sortParam(std::string_view help) {
  return query::choiceParam("sort", "retained", {"retained", "shallow", "count"}, help);
}

query::ParamSpec filterParam() {
  return query::textParam("filter", "TEXT", "only groups whose name contains TEXT (any case)");
}

query::ParamSpec addrParam() {
  return query::addressParam("addr", "ADDR", "an address inside the object (hex 0x... or decimal)")
      .withCliName("ADDR")
      .mustBeGiven();
}

Expected<NodeId> findObject(const analysis::Snapshot& snap, uint64_t address,
                            std::string_view parameter) {
  auto o = analysis::objectAt(snap, address);
  if (!o)
    return Error::notFound("no object contains address " + formatHex(address))
        .atParameter(parameter);
  return *o;
}

}  // namespace goheap::questions
