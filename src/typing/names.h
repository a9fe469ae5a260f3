// Names for objects when there is no executable to type them. In order of
// strength: the allocation site (the dump's alloc sample for the object and
// its profile bucket's stack), the dynamic type of an interface that points
// at it (an itab or type word right before the pointer), and finally its
// shape (slot size and pointer offsets), which every object has. Records of
// the runtime's span metadata (model/span_metadata.h) are named as such.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "binding/bound_executable.h"
#include "graph/heap.h"
#include "model/heap_model.h"
#include "typing/heap_types.h"

namespace goheap::typing {

enum class NameSource : uint8_t { Type, Site, Closure, Interface, Shape, Runtime };
// "type", "site", "closure", "interface", "shape", "runtime"
std::string_view nameSourceName(NameSource s);

// Whether a function is the runtime's own (runtime.mallocgc, runtime.newobject,
// internal/runtime/...): an allocation's site is the first frame that is not.
bool isRuntimeFunction(std::string_view function);

// What `top --by` groups on.
enum class GroupKind : uint8_t {
  Type,   // the DWARF type of typed objects; the others by their strongest name
  Name,   // the strongest name each object has (site, closure, interface type, shape)
  Site,   // allocation site only; objects without a sample fall back to their shape
  Shape,  // shape only
};

// Objects partitioned into named groups.
struct Grouping {
  std::vector<uint32_t> group_of;   // per object
  std::vector<std::string> names;   // per group
  std::vector<NameSource> sources;  // per group
};

class ObjectNamer {
 public:
  // `exe` (may be null) names closures by their function; `types` (may be
  // null; needs `exe`) gives typed objects their type's name first.
  ObjectNamer(const model::HeapModel& model, const graph::Heap& heap,
              const binding::BoundExecutable* exe = nullptr, const HeapTypes* types = nullptr);

  // The DWARF type's name of a typed object ("main.Session", "[8]int"), or
  // empty.
  std::string typeName(NodeId object) const;

  // Profile bucket index of the object's allocation sample, or -1.
  int64_t bucketOf(NodeId object) const;
  // "main.main main.go:35": the first frame of the bucket's stack outside
  // the runtime, with the file's base name.
  const std::string& siteName(size_t bucket) const { return site_names_[bucket]; }
  // A closure's function ("main.worker.func1") when the object's first word
  // is a function's entry (needs the executable), else empty.
  std::string_view closureFunction(NodeId object) const;
  // The type an interface word gives the object, or empty.
  std::string_view interfaceTypeOf(NodeId object) const;
  // "64 B [ptr 0,8]" or "48 B [no ptrs]".
  std::string shapeName(NodeId object) const;

  // The strongest name for one object, and where it came from.
  std::string name(NodeId object, NameSource* source = nullptr) const;

  Grouping group(GroupKind kind) const;

  // The memory the namer's own tables hold (samples, names, the interface
  // scan's results once it ran).
  uint64_t heldBytes() const;

  // Runs the one full interface scan now, rather than when the lookups of
  // single objects have cost as much (see iface_scanned_).
  void scanAllInterfaces() const { scanInterfaces(); }

 private:
  struct SiteFrame;
  SiteFrame siteFrame(const model::ProfileFrame& f,
                      std::unordered_map<std::string, std::string_view>& cache) const;
  uint64_t shapeHash(NodeId object) const;
  // Type record of the first interface (in the global scan's order) whose
  // data word points into `object`, found through its referrers alone; or
  // UINT32_MAX.
  uint32_t interfaceTypeFromReferrers(NodeId object) const;
  // Fills iface_types_ from every pointer slot of the dump.
  void scanInterfaces() const;
  template <class Fn>
  void forEachInterface(const uint8_t* contents, Fn&& for_each_slot, NodeId only_target,
                        uint32_t& found) const;

  const model::HeapModel& model_;
  const graph::Heap& heap_;
  const binding::BoundExecutable* exe_;
  const HeapTypes* types_;
  uint64_t text_lo_ = 1, text_hi_ = 0;  // run-time code addresses, for a quick range check
  std::vector<std::pair<NodeId, uint32_t>> samples_;  // (object, bucket), by object
  std::vector<std::string> site_names_;               // per bucket
  std::vector<std::string> type_names_;               // per type record, pointee's name
  // Itab and type descriptor addresses -> type record, and their range.
  std::unordered_map<uint64_t, uint32_t> type_of_word_;
  uint64_t type_word_lo_ = UINT64_MAX, type_word_hi_ = 0;
  // Scanning every pointer slot for interfaces costs as much as a pass over
  // the file, and `summary` names only a few objects. So single objects are
  // looked up through their referrers, until those lookups have cost about
  // one full scan; the full scan then runs once and answers everything.
  // Threads may share a namer: the lazy state is guarded by iface_mutex_,
  // and once iface_scanned_ is set every call only reads.
  mutable std::mutex iface_mutex_;
  mutable std::atomic<bool> iface_scanned_ = false;
  mutable uint64_t referrer_work_ = 0;
  mutable std::vector<std::pair<NodeId, uint32_t>>
      iface_types_;  // (object, type record), by object
};

}  // namespace goheap::typing
