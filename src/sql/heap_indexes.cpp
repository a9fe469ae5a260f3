#include "sql/heap_indexes.h"

#include <algorithm>
#include <numeric>

#include "analysis/slots.h"
#include "sql/built_tables.h"

namespace goheap::sql {

std::span<const uint32_t> GroupIndex::membersNamed(std::string_view name) const {
  auto it = by_name.find(name);
  if (it == by_name.end()) return {};
  const auto [first_rank, groups] = it->second;
  const uint32_t first = name_order[first_rank];
  const uint32_t last = name_order[first_rank + groups - 1];
  return std::span<const uint32_t>(members).subspan(begin[first],
                                                    begin[last] + count[last] - begin[first]);
}

namespace {

GroupIndex indexGroups(const analysis::Snapshot& s, typing::GroupKind kind) {
  GroupIndex gi;
  gi.grouping = s.namer().group(kind);
  const std::vector<std::string>& names = gi.grouping.names;
  const size_t groups = names.size();
  gi.name_order.resize(groups);
  std::iota(gi.name_order.begin(), gi.name_order.end(), 0u);
  std::sort(gi.name_order.begin(), gi.name_order.end(), [&](uint32_t a, uint32_t b) {
    if (names[a] != names[b]) return names[a] < names[b];
    return a < b;
  });
  gi.count.assign(groups, 0);
  const uint32_t objects = s.heap.objectCount();
  for (NodeId o = 0; o < objects; o++) {
    if (!s.isRuntimeMetadata(o)) gi.count[gi.grouping.group_of[o]]++;
  }
  gi.begin.assign(groups, 0);
  uint32_t at = 0;
  for (uint32_t rank = 0; rank < groups; rank++) {
    const uint32_t g = gi.name_order[rank];
    gi.begin[g] = at;
    at += gi.count[g];
    auto [it, inserted] = gi.by_name.try_emplace(names[g], std::pair{rank, 0u});
    it->second.second++;
  }
  gi.members.resize(at);
  std::vector<uint32_t> next = gi.begin;
  for (NodeId o = 0; o < objects; o++) {
    if (!s.isRuntimeMetadata(o)) gi.members[next[gi.grouping.group_of[o]]++] = o;
  }
  return gi;
}

}  // namespace

SqlHeap::SqlHeap(const query::Session& session)
    : SqlHeap(std::shared_ptr<const query::Session>(std::shared_ptr<const query::Session>(),
                                                    &session)) {}

SqlHeap::SqlHeap(std::shared_ptr<const query::Session> session) : session_(std::move(session)) {
  const graph::Heap& heap = snapshot().heap;
  for (NodeId r = heap.objectCount(); r < heap.nodeCount(); r++) {
    if (heap.rootKind(r) == graph::RootKind::DataSegment) data_node_ = r;
    if (heap.rootKind(r) == graph::RootKind::BssSegment) bss_node_ = r;
  }
}

const GroupIndex& SqlHeap::groups(typing::GroupKind kind) const {
  return groups_[static_cast<size_t>(kind)].get([&] { return indexGroups(snapshot(), kind); });
}

const BuiltRows& SqlHeap::rows(BuiltTable table) const {
  return rows_[static_cast<size_t>(table)].get([&] {
    const BuiltTableSpec& spec = builtTableSpec(table);
    BuiltRows built = spec.build(*this);
    for (int column : spec.indexed) {
      const bool text = spec.schema.columns[static_cast<size_t>(column)].type == SqlType::Text;
      if (text) {
        auto& index =
            built.text_index.emplace_back(column, std::unordered_multimap<std::string, uint32_t>{})
                .second;
        for (uint32_t r = 0; r < built.rows.size(); r++) {
          if (const auto* v =
                  std::get_if<std::string>(&built.rows[r][static_cast<size_t>(column)])) {
            index.emplace(*v, r);
          }
        }
      } else {
        auto& index =
            built.int_index.emplace_back(column, std::unordered_multimap<int64_t, uint32_t>{})
                .second;
        for (uint32_t r = 0; r < built.rows.size(); r++) {
          if (const auto* v = std::get_if<int64_t>(&built.rows[r][static_cast<size_t>(column)])) {
            index.emplace(*v, r);
          }
        }
      }
    }
    return built;
  });
}

const std::vector<analysis::Header>& SqlHeap::textHeaders() const {
  return text_headers_.get([&] {
    std::vector<analysis::Header> out;
    for (const analysis::Header& h : session_->typedHeaders()) {
      if (h.kind == analysis::HeaderKind::String ||
          (h.kind == analysis::HeaderKind::Slice && h.byte_elems)) {
        out.push_back(h);
      }
    }
    // By holder, for strings' lookups by holder (findHeaders' order puts the
    // data segment before bss, whatever their node ids).
    std::stable_sort(
        out.begin(), out.end(),
        [](const analysis::Header& a, const analysis::Header& b) { return a.holder < b.holder; });
    return out;
  });
}

const std::vector<uint32_t>& SqlHeap::textHeadersByTarget() const {
  return text_by_target_.get([&] {
    const std::vector<analysis::Header>& headers = textHeaders();
    std::vector<uint32_t> order(headers.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return headers[a].data < headers[b].data; });
    return order;
  });
}

void refsFrom(const analysis::Snapshot& s, NodeId from, std::vector<RefRow>& out) {
  out.clear();
  if (from == s.heap.superRoot()) return;  // its edges to the roots are no references
  const graph::AddressIndex& addresses = s.heap.addresses();
  analysis::forEachNodeSlot(s, from, [&](uint64_t offset, uint64_t value, uint64_t slot) {
    if (value == 0) return;
    const NodeId to = addresses.find(value);
    if (to != kNoNode) out.push_back({to, offset, slot});
  });
  const std::span<const NodeId> edges = s.heap.successors.neighbors(from);
  if (out.size() == 0) {
    for (NodeId to : edges) out.push_back({to, std::nullopt, 0});
    return;
  }
  // The edges no slot accounts for; sorted targets, as a data segment or a
  // large array has many slots.
  std::vector<NodeId> slot_targets(out.size());
  for (size_t i = 0; i < out.size(); i++) slot_targets[i] = out[i].to;
  std::sort(slot_targets.begin(), slot_targets.end());
  for (NodeId to : edges) {
    if (!std::binary_search(slot_targets.begin(), slot_targets.end(), to)) {
      out.push_back({to, std::nullopt, 0});
    }
  }
}

}  // namespace goheap::sql
