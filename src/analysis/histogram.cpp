#include "analysis/histogram.h"

#include <algorithm>

#include "graph/tree_walk.h"

namespace goheap::analysis {

namespace {

Histogram computeGroups(const Snapshot& s, typing::GroupKind by) {
  const typing::Grouping g = s.namer().group(by);
  const size_t groups = g.names.size();
  std::vector<HistogramRow> rows(groups);
  for (size_t i = 0; i < groups; i++) {
    rows[i].name = g.names[i];
    rows[i].source = std::string(typing::nameSourceName(g.sources[i]));
  }
  Histogram h;
  for (NodeId o = 0; o < s.heap.objectCount(); o++) {
    if (!s.reachable(o)) continue;
    HistogramRow& r = rows[g.group_of[o]];
    r.count++;
    if (s.types && s.types->inferred(o)) r.inferred_count++;
    r.shallow += s.model.objects.size[o];
    h.total_count++;
    h.total_shallow += s.model.objects.size[o];
  }
  // A member's retained size counts unless another member of its group
  // dominates it: walk the dominator tree keeping, per group, how many
  // members are on the current path.
  std::vector<uint32_t> on_path(groups, 0);
  walkTreeDepthFirst(
      s.dominatorChildren(), s.heap.superRoot(),
      [&](NodeId c) {
        if (!s.heap.isObject(c)) return;
        const uint32_t grp = g.group_of[c];
        if (on_path[grp] == 0) rows[grp].retained += s.retained[c];
        on_path[grp]++;
      },
      [&](NodeId n) {
        if (s.heap.isObject(n)) on_path[g.group_of[n]]--;
      });

  rows.erase(
      std::remove_if(rows.begin(), rows.end(), [](const HistogramRow& r) { return r.count == 0; }),
      rows.end());
  h.groups = rows.size();
  h.rows = std::move(rows);
  return h;
}

}  // namespace

Histogram groupTotals(const Snapshot& s, typing::GroupKind by) {
  return computeGroups(s, by);
}

Histogram histogram(const Snapshot& s, typing::GroupKind by, SortKey sort, size_t limit) {
  return histogram(computeGroups(s, by), sort, limit);
}

Histogram histogram(const Histogram& all, SortKey sort, size_t limit) {
  Histogram h = all;
  std::vector<HistogramRow>& rows = h.rows;
  auto key = [sort](const HistogramRow& r) {
    switch (sort) {
      case SortKey::Shallow:
        return r.shallow;
      case SortKey::Count:
        return r.count;
      case SortKey::Retained:
        break;
    }
    return r.retained;
  };
  std::sort(rows.begin(), rows.end(), [&](const HistogramRow& a, const HistogramRow& b) {
    if (key(a) != key(b)) return key(a) > key(b);
    return a.name < b.name;
  });
  if (rows.size() > limit) rows.resize(limit);
  return h;
}

}  // namespace goheap::analysis
