#include "typing/assignment_store.h"

#include "util/large_vector.h"

namespace goheap::typing {

size_t AssignmentHash::operator()(const TypeAssignment& a) const {
  const uint64_t types = uint64_t{a.layout} << 32 | a.shown;
  const uint64_t rest = uint64_t{a.count} << 32 | uint64_t{static_cast<uint8_t>(a.evidence)} << 24 |
                        uint64_t{static_cast<uint8_t>(a.form)} << 16 |
                        uint64_t{a.data_offset} << 8 | a.count_guessed;
  // Multiply-xorshift: cheap, and every input bit reaches the high bits
  // the table's bucket index is taken from.
  uint64_t h = types * 0x9E3779B97F4A7C15ull ^ rest;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return static_cast<size_t>(h ^ (h >> 32));
}

AssignmentTable::AssignmentTable() {
  entries_.push_back(TypeAssignment{});
  numbers_.emplace(TypeAssignment{}, 0);
}

uint32_t AssignmentTable::intern(const TypeAssignment& a) {
  std::lock_guard lock(mutex_);
  const auto [it, added] = numbers_.try_emplace(a, static_cast<uint32_t>(entries_.size()));
  if (added) entries_.push_back(a);
  return it->second;
}

void AssignmentTable::extend(std::vector<TypeAssignment>& copy) const {
  std::lock_guard lock(mutex_);
  copy.insert(copy.end(), entries_.begin() + static_cast<std::ptrdiff_t>(copy.size()),
              entries_.end());
}

std::vector<TypeAssignment> AssignmentTable::take() {
  std::lock_guard lock(mutex_);
  numbers_.clear();
  return std::move(entries_);
}

ObjectAssignments::ObjectAssignments(size_t objects, unsigned chunk_shift)
    : chunk_shift_(chunk_shift) {
  assignLarge(narrow_, objects, uint16_t{0});
  wide_.resize((objects >> chunk_shift) + 1);
}

uint32_t ObjectAssignments::escaped(NodeId o) const {
  return wide_.at(o >> chunk_shift_).at(o);
}

void ObjectAssignments::setEscaped(NodeId o, uint32_t number) {
  std::unordered_map<NodeId, uint32_t>& wide = wide_[o >> chunk_shift_];
  if (number < kEscaped) {
    wide.erase(o);
    narrow_[o] = static_cast<uint16_t>(number);
    return;
  }
  narrow_[o] = kEscaped;
  wide[o] = number;
}

void finishAssignments(ObjectAssignments& objects, AssignmentTable& table, HeapTypes& out) {
  std::vector<TypeAssignment> entries = table.take();
  std::vector<uint32_t> renumbered(entries.size(), UINT32_MAX);
  renumbered[0] = 0;
  std::vector<TypeAssignment> kept{entries[0]};
  const size_t n = objects.size();
  for (NodeId o = 0; o < n; o++) {
    uint32_t& to = renumbered[objects.get(o)];
    if (to == UINT32_MAX) {
      to = static_cast<uint32_t>(kept.size());
      kept.push_back(entries[objects.get(o)]);
    }
  }
  if (kept.size() <= ObjectAssignments::kEscaped) {
    // Rewritten in place: get(o) is read before narrow_[o] is written.
    for (NodeId o = 0; o < n; o++) {
      objects.narrow_[o] = static_cast<uint16_t>(renumbered[objects.get(o)]);
    }
    out.assignment = PackedIds::fromPacked(0, 0, std::move(objects.narrow_));
  } else {
    std::vector<uint32_t> wide;
    resizeLarge(wide, n);
    for (NodeId o = 0; o < n; o++) wide[o] = renumbered[objects.get(o)];
    out.assignment = PackedIds(std::move(wide));
  }
  objects.wide_.clear();
  out.assignments = std::move(kept);
}

}  // namespace goheap::typing
