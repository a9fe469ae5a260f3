// What the SQL tables need of a heap beyond its Snapshot, computed on first
// use and then kept for every connection over it: each object's group name
// (type, site, shape) with the objects listed group by group in name order,
// so that `WHERE type = ?` and `GROUP BY type` read a slice instead of
// scanning and sorting; the rows of the small tables (roots, goroutines,
// frames, globals, types, sites), built once. Safe to share between threads.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "query/session.h"
#include "typing/names.h"

namespace goheap::sql {

// Bytes that are not text (a []byte's contents, an object's).
struct Blob {
  std::string bytes;
  bool operator==(const Blob&) const = default;
};
// A cell: of a built table, or of a query's result.
using Value = std::variant<std::monostate, int64_t, double, std::string, Blob>;

// A small table built once (roots, goroutines, ...): its rows, and for the
// columns it can be searched on, where each value's rows are.
struct BuiltRows {
  std::vector<std::vector<Value>> rows;
  // Per searchable column: value -> row numbers, in row order.
  std::vector<std::pair<int, std::unordered_multimap<std::string, uint32_t>>> text_index;
  std::vector<std::pair<int, std::unordered_multimap<int64_t, uint32_t>>> int_index;
};

// The objects grouped by one kind of name, groups in name order.
struct GroupIndex {
  typing::Grouping grouping;
  // The objects (not span metadata), group after group in name order and
  // by id within a group.
  std::vector<uint32_t> members;
  // Per group id: where its members start in `members`, and how many.
  std::vector<uint32_t> begin, count;
  // A name's first group in name order and the number of groups so named
  // (an interface's and a DWARF type's group may share a name).
  std::unordered_map<std::string_view, std::pair<uint32_t, uint32_t>> by_name;
  std::vector<uint32_t> name_order;  // group ids sorted by name

  // The members of every group named `name`: one slice, as same-named
  // groups are adjacent.
  std::span<const uint32_t> membersNamed(std::string_view name) const;
};

// Which built table (SqlHeap::rows).
enum class BuiltTable : uint8_t {
  Roots,
  Goroutines,
  Frames,
  Globals,
  Types,
  Sites,
  Mappings,
  Count
};

class SqlHeap {
 public:
  explicit SqlHeap(std::shared_ptr<const query::Session> session);
  // Over a Session that outlives it (one that keeps it: Session::derived).
  explicit SqlHeap(const query::Session& session);
  SqlHeap(const SqlHeap&) = delete;
  SqlHeap& operator=(const SqlHeap&) = delete;

  const query::Session& session() const { return *session_; }
  const analysis::Snapshot& snapshot() const { return session_->snapshot(); }

  // Type (as `top --by type`), Site or Shape.
  const GroupIndex& groups(typing::GroupKind kind) const;
  const BuiltRows& rows(BuiltTable table) const;
  // The string and []byte headers in typed memory (query::Session's), by
  // holder; and their order by the address of the bytes.
  const std::vector<analysis::Header>& textHeaders() const;
  const std::vector<uint32_t>& textHeadersByTarget() const;
  // The node of the data and bss segments (kNoNode when the heap has none).
  NodeId dataNode() const { return data_node_; }
  NodeId bssNode() const { return bss_node_; }

 private:
  std::shared_ptr<const query::Session> session_;
  NodeId data_node_ = kNoNode, bss_node_ = kNoNode;
  std::array<query::Once<GroupIndex>, 4> groups_;
  std::array<query::Once<BuiltRows>, static_cast<size_t>(BuiltTable::Count)> rows_;
  query::Once<std::vector<analysis::Header>> text_headers_;
  query::Once<std::vector<uint32_t>> text_by_target_;
};

// The edges out of one node as `refs` lists them: every pointer slot that
// points into a heap object (with its offset and address), then the graph's
// edges no slot accounts for (a goroutine's, a finalizer's, a stack object's),
// without an offset.
struct RefRow {
  NodeId to = kNoNode;
  std::optional<uint64_t> offset;
  uint64_t slot_address = 0;
};
void refsFrom(const analysis::Snapshot& s, NodeId from, std::vector<RefRow>& out);

}  // namespace goheap::sql
