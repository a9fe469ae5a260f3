// The objects grouped by name (`goheap top`): each group's count, shallow
// and retained bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/snapshot.h"
#include "typing/names.h"

namespace goheap::analysis {

enum class SortKey : uint8_t { Retained, Shallow, Count };

struct HistogramRow {
  std::string name;
  std::string source;
  uint64_t count = 0;
  uint64_t inferred_count = 0;  // members typed by shape alone (source "type")
  uint64_t shallow = 0;
  // Bytes the group retains: retained sizes of its members that no other
  // member dominates (so nothing is counted twice).
  uint64_t retained = 0;
};

struct Histogram {
  std::vector<HistogramRow> rows;  // sorted, cut to the requested number
  uint64_t groups = 0;             // before the cut
  uint64_t total_count = 0, total_shallow = 0;
};
Histogram histogram(const Snapshot& s, typing::GroupKind by, SortKey sort, size_t limit);
// Every group with its totals, unsorted: what a server keeps (query::Session)
// to answer each sort, filter and page without grouping again.
Histogram groupTotals(const Snapshot& s, typing::GroupKind by);
// `all` (groupTotals) sorted by `sort` and cut to `limit` rows.
Histogram histogram(const Histogram& all, SortKey sort, size_t limit);

}  // namespace goheap::analysis
