// The Dart VM's heap snapshot (runtime/vm/service/heap_snapshot.md in the
// Dart SDK), for Dart DevTools' memory view and the tools built on
// package:vm_service's HeapSnapshotGraph. A binary stream of LEB128
// integers: header, classes, objects, external properties, identity hash
// codes. Written in two passes over the heap: the first finds each class's
// layout and the total reference count the header needs, the second writes
// the objects. Memory: per class, never per object (beyond the grouping the
// namer builds for every command). Mapping: docs/export-formats.md.
#include <algorithm>
#include <cctype>
#include <string_view>

#include "analysis/labels.h"
#include "analysis/slots.h"
#include "export/edge_names.h"
#include "export/formats.h"
#include "util/format.h"

namespace goheap::exporting {

namespace {

// NonReferenceData tags (the reader in package:vm_service; the markdown
// gives NameData 7 by mistake, the VM writes 8).
constexpr uint64_t kNoData = 0, kLatin1Data = 5, kLengthData = 7, kNameData = 8;
constexpr uint64_t kMaxStringBytes = 128;  // a string object's bytes kept as data

void uleb(Output& out, uint64_t v) {
  uint8_t buf[10];
  size_t n = 0;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if (v != 0) b |= 0x80;
    buf[n++] = b;
  } while (v != 0);
  out.bytes(buf, n);
}

void utf8(Output& out, std::string_view s) {
  uleb(out, s.size());
  out.text(s);
}

struct DartClass {
  std::string name, library;
  // With per_slot, the object's references are one per pointer slot, in
  // offset order (0 for nil or a pointer outside the heap), and fields[i]
  // names reference i. Otherwise references are the graph's successors.
  bool per_slot = false;
  std::vector<std::string> fields;
};

// "main.Session" -> ("main", "Session"); "github.com/a/b.List[main.T]" ->
// ("github.com/a/b", "List[main.T]"); anything else stays whole.
void splitGoName(const std::string& full, DartClass& c) {
  c.name = full;
  if (full.empty() || full.find(' ') != std::string::npos) return;
  if (!(std::isalpha(static_cast<unsigned char>(full[0])) || full[0] == '_')) return;
  const size_t bracket = full.find('[');
  const size_t dot = full.rfind('.', bracket == std::string::npos ? full.size() : bracket);
  if (dot == std::string::npos || dot == 0) return;
  c.library = full.substr(0, dot);
  c.name = full.substr(dot + 1);
}

// One pass over a node's pointer slots: FNV-1a of the offsets, and count.
struct Layout {
  uint64_t hash = 1469598103934665603ull;
  uint64_t slots = 0;
  bool operator==(const Layout&) const = default;
};

Layout slotLayout(const analysis::Snapshot& s, NodeId n) {
  Layout l;
  analysis::forEachNodeSlot(s, n, [&](uint64_t off, uint64_t, uint64_t) {
    l.hash = (l.hash ^ off) * 1099511628211ull;
    l.slots++;
  });
  return l;
}

// Classes 1..G are the namer's groups (Go types with DWARF), then one per
// root kind. The super-root's class is the one for RootKind::SuperRoot.
class ClassTable {
 public:
  ClassTable(const analysis::Snapshot& s, const typing::Grouping& groups) : s_(s), g_(groups) {}

  // Pass one: layouts and the reference total.
  void build();
  uint32_t classOf(NodeId n) const {
    if (s_.heap.isObject(n)) return g_.group_of[n] + 1;
    return static_cast<uint32_t>(g_.names.size()) + 1 + static_cast<uint32_t>(s_.heap.rootKind(n));
  }
  const DartClass& get(uint32_t id) const { return classes_[id - 1]; }
  const std::vector<DartClass>& all() const { return classes_; }
  uint64_t references() const { return references_; }

 private:
  const analysis::Snapshot& s_;
  const typing::Grouping& g_;
  std::vector<DartClass> classes_;
  uint64_t references_ = 0;
};

void ClassTable::build() {
  const graph::Heap& h = s_.heap;
  const size_t groups = g_.names.size();
  classes_.resize(groups + static_cast<size_t>(graph::RootKind::OtherRoot) + 1);
  // A typed group gets fields when all its objects have the same pointer
  // slots (they do, for one Go type); its references are then per slot.
  std::vector<NodeId> first(groups, kNoNode);
  std::vector<Layout> layout(groups);
  std::vector<uint8_t> same(groups, 1);
  std::vector<uint64_t> slot_refs(groups, 0), edge_refs(groups, 0);
  for (NodeId o = 0; o < h.objectCount(); o++) {
    const uint32_t g = g_.group_of[o];
    edge_refs[g] += h.successors.neighbors(o).size();
    if (g_.sources[g] != typing::NameSource::Type) continue;
    const Layout l = slotLayout(s_, o);
    slot_refs[g] += l.slots;
    if (first[g] == kNoNode) {
      first[g] = o;
      layout[g] = l;
    } else if (!(l == layout[g])) {
      same[g] = 0;
    }
  }
  EdgeNamer names(s_);
  auto fieldsOf = [&](NodeId n, DartClass& c) {
    c.per_slot = true;
    analysis::forEachNodeSlot(s_, n, [&](uint64_t off, uint64_t, uint64_t addr) {
      SlotName l = names.slotName(n, off, addr);
      c.fields.push_back(l.is_index ? formatIndex(l.index) : std::move(l.name));
    });
  };
  for (size_t g = 0; g < groups; g++) {
    splitGoName(g_.names[g], classes_[g]);
    if (first[g] != kNoNode && same[g] && layout[g].slots > 0) fieldsOf(first[g], classes_[g]);
    references_ += classes_[g].per_slot ? slot_refs[g] : edge_refs[g];
  }
  for (NodeId r = h.objectCount(); r < h.nodeCount(); r++) {
    DartClass& c = classes_[classOf(r) - 1];
    const graph::RootKind kind = h.rootKind(r);
    c.name = kind == graph::RootKind::SuperRoot ? "Root" : std::string(graph::rootKindName(kind));
    // The data and bss segments are one node each: their fields are the
    // global variables' pointer words.
    if (kind == graph::RootKind::DataSegment || kind == graph::RootKind::BssSegment) {
      fieldsOf(r, c);
      references_ += c.fields.size();
    } else {
      references_ += h.successors.neighbors(r).size();
    }
  }
  for (size_t i = 0; i < classes_.size(); i++) {
    if (classes_[i].name.empty()) classes_[i].name = "(unused)";
  }
}

// Nodes are written super-root first (object 1 is the root), then the
// objects in address order, then the other roots.
uint64_t dartId(const graph::Heap& h, NodeId n) {
  if (n == h.superRoot()) return 1;
  return n < h.superRoot() ? uint64_t{n} + 2 : uint64_t{n} + 1;
}

void writeClasses(const ClassTable& classes, Output& out) {
  uleb(out, classes.all().size());
  for (const DartClass& c : classes.all()) {
    uleb(out, 0);  // flags
    utf8(out, c.name);
    utf8(out, c.library);
    utf8(out, c.library);  // library URI: the Go package path
    utf8(out, "");         // reserved
    uleb(out, c.fields.size());
    for (size_t i = 0; i < c.fields.size(); i++) {
      uleb(out, 0);  // flags
      uleb(out, i);  // index into the object's references
      utf8(out, c.fields[i]);
      utf8(out, "");  // reserved
    }
  }
}

// What an object holds besides pointers: a string's leading bytes (when
// they are ASCII), an array's length, a closure's function, a root's name.
void writeData(const analysis::Snapshot& s, NodeId n, Output& out) {
  if (!s.heap.isObject(n)) {
    if (n == s.heap.superRoot()) return uleb(out, kNoData);
    uleb(out, kNameData);
    return utf8(out, analysis::labelNode(s, n).name);
  }
  const typing::TypeForm form = s.types ? s.types->form(n) : typing::TypeForm::None;
  if (form == typing::TypeForm::StringBytes) {
    const uint64_t size = s.model.objects.size[n];
    const uint64_t kept = std::min(size, kMaxStringBytes);
    const uint8_t* p = s.model.objectData(n);
    if (std::all_of(p, p + kept, [](uint8_t b) { return b < 0x80; })) {
      uleb(out, kLatin1Data);
      uleb(out, size);
      uleb(out, kept);
      return out.bytes(p, kept);
    }
  }
  if (form == typing::TypeForm::Array) {
    uleb(out, kLengthData);
    return uleb(out, s.types->count(n));
  }
  if (std::string_view fn = s.namer().closureFunction(n); !fn.empty()) {
    uleb(out, kNameData);
    return utf8(out, fn);
  }
  uleb(out, kNoData);
}

void writeObject(const analysis::Snapshot& s, const ClassTable& classes, NodeId n,
                 std::vector<uint64_t>& refs, Output& out) {
  const graph::Heap& h = s.heap;
  const uint32_t cls = classes.classOf(n);
  uleb(out, cls);
  uleb(out, s.shallowSize(n));
  writeData(s, n, out);
  refs.clear();
  if (classes.get(cls).per_slot) {
    analysis::forEachNodeSlot(s, n, [&](uint64_t, uint64_t value, uint64_t) {
      const NodeId t = value == 0 ? kNoNode : h.addresses().find(value);
      refs.push_back(t == kNoNode ? 0 : dartId(h, t));
    });
  } else {
    for (NodeId t : h.successors.neighbors(n)) refs.push_back(dartId(h, t));
  }
  uleb(out, refs.size());
  for (uint64_t r : refs) uleb(out, r);
}

// Nonzero (zero means "none"), the same for an object in every snapshot of
// one process: from its address.
uint32_t identityHash(const analysis::Snapshot& s, NodeId n) {
  uint64_t x = s.heap.isObject(n) ? s.model.objects.addr[n] : n;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  const auto h = static_cast<uint32_t>(x);
  return h == 0 ? 1 : h;
}

}  // namespace

Status writeDartHeap(const analysis::Snapshot& s, const ConvertOptions& options, Output& out) {
  WriteProgress progress(options, "dartheap");
  const graph::Heap& h = s.heap;
  const typing::Grouping groups = s.namer().group(typing::GroupKind::Type);
  ClassTable classes(s, groups);
  classes.build();
  uint64_t shallow = 0;
  for (NodeId o = 0; o < h.objectCount(); o++) shallow += s.model.objects.size[o];

  out.text("dartheap");
  uleb(out, 0);  // flags
  utf8(out, "go heap " + std::string(s.model.params.go_version) + " " +
                std::string(s.model.params.arch));
  uleb(out, shallow);
  uleb(out, std::max(shallow, s.model.memstats.heap_sys));  // capacity
  uleb(out, 0);                                             // external size
  writeClasses(classes, out);
  uleb(out, classes.references());
  uleb(out, h.nodeCount());
  std::vector<uint64_t> refs;
  uint64_t done = 0;
  auto each = [&](auto&& fn) {
    fn(h.superRoot());
    for (NodeId n = 0; n < h.nodeCount(); n++) {
      if (n != h.superRoot()) fn(n);
    }
  };
  each([&](NodeId n) {
    writeObject(s, classes, n, refs, out);
    if ((++done & 0xffff) == 0) progress.report(done, h.nodeCount());
  });
  uleb(out, 0);  // external properties
  each([&](NodeId n) { uleb(out, identityHash(s, n)); });
  progress.report(h.nodeCount(), h.nodeCount());
  return Status::success();
}

}  // namespace goheap::exporting
