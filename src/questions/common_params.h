// Parameters and lookups several questions share, so that `top` and `diff`
// spell --filter the same way and every ADDR is read by one rule.
#pragma once

#include <string_view>

#include "analysis/snapshot.h"
#include "query/labels.h"
#include "query/params.h"
#include "util/error.h"

namespace goheap::questions {

// The labels every answer names nodes with.
using query::labelText;
using query::writeLabel;
using query::writePathSteps;
// The parameter builders, for the questions' tables.
using query::addressParam;
using query::byteSizeParam;
using query::choiceParam;
using query::flagParam;
using query::percentParam;
using query::textParam;
using query::uintParam;

// --limit N / -n N with the question's own default and help.
query::ParamSpec limitParam(std::string_view fallback, std::string_view help);
// --sort retained|shallow|count.
query::ParamSpec sortParam(std::string_view help);
// --filter TEXT: groups whose name contains TEXT.
query::ParamSpec filterParam();
// ADDR, an address inside the object.
query::ParamSpec addrParam();

// The object containing `address`, or an Error::notFound naming `parameter`.
Expected<NodeId> findObject(const analysis::Snapshot& snap, uint64_t address,
                            std::string_view parameter);

}  // namespace goheap::questions
