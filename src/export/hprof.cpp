// hprof ("JAVA PROFILE 1.0.2"), the heap dump format of the JVM, for VisualVM
// and Eclipse MAT. docs/export-formats.md ("hprof") gives the mapping: one
// class per Go type (or per goheap name for untyped objects) with the
// object's exact size as its instance size, strings and pointer-free arrays
// as primitive arrays, pointer arrays as object arrays, globals as static
// fields of one class per package, goroutines as threads with stack traces,
// and every root of goheap's graph as a GC root of its kind.
//
// Object ids are the objects' addresses; references point at the start of
// the object that a (possibly interior) Go pointer points into, and only the
// words the dump's field lists mark as pointers become references, so the
// reference graph, and with it every retained size, is goheap's.
//
// Memory: one class index per object (4 bytes each) is kept between the pass
// that chooses classes and the pass that writes objects; the classes, strings
// and roots are held in memory (they grow with the number of types, stack
// words and globals, not with the heap). Objects are streamed.
#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "analysis/goroutine_info.h"
#include "export/formats.h"
#include "typing/heap_types.h"
#include "typing/values.h"
#include "util/format.h"

namespace goheap::exporting {

namespace {

using bin::GoKind;
using bin::kNoType;
using bin::TypeId;

// hprof basic types.
enum class HType : uint8_t {
  Object = 2,
  Boolean = 4,
  Char = 5,
  Float = 6,
  Double = 7,
  Byte = 8,
  Short = 9,
  Int = 10,
  Long = 11
};

// Top-level record tags and heap dump sub-record tags.
constexpr uint8_t kUtf8 = 0x01, kLoadClass = 0x02, kFrame = 0x04, kTrace = 0x05,
                  kStartThread = 0x0A, kHeapDumpSegment = 0x1C, kHeapDumpEnd = 0x2C;
constexpr uint8_t kRootUnknown = 0xFF, kRootJniGlobal = 0x01, kRootJavaFrame = 0x03,
                  kRootThreadBlock = 0x06, kRootStickyClass = 0x05, kRootThreadObj = 0x08,
                  kClassDump = 0x20, kInstanceDump = 0x21, kObjArrayDump = 0x22,
                  kPrimArrayDump = 0x23;

// A heap dump segment's length is a u4; objects are grouped into segments
// of at most this many bytes (one object bigger than that gets its own).
constexpr uint64_t kSegmentLimit = uint64_t{1} << 30;
// Classes with more flattened fields than this use the pointer-word layout.
constexpr size_t kMaxTypedFields = 4096;
// Objects with more pointer words than this become object arrays.
constexpr size_t kMaxSlotFields = 4096;

uint32_t valueSize(HType t, uint32_t id_size) {
  switch (t) {
    case HType::Object:
      return id_size;
    case HType::Boolean:
    case HType::Byte:
      return 1;
    case HType::Char:
    case HType::Short:
      return 2;
    case HType::Float:
    case HType::Int:
      return 4;
    case HType::Double:
    case HType::Long:
      return 8;
  }
  return 0;
}

// A primitive array type by element size (Go's integers are signed or not;
// Java's are signed, and the bytes are the same).
HType primitiveOfSize(uint64_t size) {
  switch (size) {
    case 1:
      return HType::Byte;
    case 2:
      return HType::Short;
    case 4:
      return HType::Int;
    default:
      return HType::Long;
  }
}

// A growable byte buffer with the same big-endian helpers as Output, for the
// records whose length must be known before they are written.
struct Bytes {
  std::string b;
  void u8(uint8_t v) { b.push_back(static_cast<char>(v)); }
  void u16(uint16_t v) { be(v, 2); }
  void u32(uint32_t v) { be(v, 4); }
  void u64(uint64_t v) { be(v, 8); }
  void be(uint64_t v, uint32_t n) {
    for (uint32_t i = n; i-- > 0;) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void text(std::string_view s) { b.append(s); }
};

struct FieldDef {
  uint64_t name = 0;  // string id
  HType type = HType::Long;
  uint64_t offset = 0;  // of the value in the object
  uint32_t size = 0;    // bytes of the Go value read (a ref: the pointer size)
};

enum class Shape : uint8_t { Instance, ObjectArray, PrimitiveArray };

struct ClassDef {
  std::string vm_name;  // as written ("[L*main.Node;" for an array class)
  uint64_t id = 0;
  uint64_t name_id = 0;
  Shape shape = Shape::Instance;
  HType element = HType::Byte;  // primitive arrays
  uint64_t element_size = 1;    // primitive arrays: bytes per Go element read
  uint64_t first_offset = 0;    // arrays: where the elements start (a malloc header before)
  uint32_t instance_size = 0;   // instances: the Go object's size
  // A primitive array read with another element size or start: objects
  // point at it, but it is written as its base class ("[J"), once.
  bool alias = false;
  uint32_t super_class = UINT32_MAX;  // java.lang.Object unless set
  std::vector<FieldDef> fields;
  std::vector<std::pair<uint64_t, std::pair<HType, uint64_t>>> statics;  // name, type, value
};

// A global's static field: its package's class and the field.
struct StaticRef {
  std::string package, field;
  uint64_t target = 0;
};

// The package of a Go symbol: "net/http.(*conn).serve" -> "net/http".
std::string packageOf(std::string_view name) {
  const size_t slash = name.rfind('/');
  const size_t start = slash == std::string_view::npos ? 0 : slash + 1;
  const size_t dot = name.find('.', start);
  if (dot == std::string_view::npos) return std::string(name);
  return std::string(name.substr(0, dot));
}

// Java readers take a leading '[' as an array descriptor: Go's "[4]main.T"
// is written "main.T[4]" so that it reads as itself.
std::string instanceClassName(std::string name) {
  while (!name.empty() && name[0] == '[') {
    const size_t close = name.find(']');
    if (close == std::string::npos) break;
    name = name.substr(close + 1) + name.substr(0, close + 1);
  }
  return name;
}

class HprofWriter {
 public:
  HprofWriter(const analysis::Snapshot& s, const ConvertOptions& options, Output& out)
      : s_(s), d_(s.model), progress_(options, "hprof"), out_(out), ptr_(d_.params.ptr_size) {
    // 32-bit dumps use 4-byte ids: VisualVM then takes references (object
    // array elements) to be 4 bytes, as the Go pointers are.
    id_size_ = ptr_ == 4 ? 4 : 8;
    dwarf_ = s.exe && s.types ? s.exe->typeTable() : nullptr;
  }

  Status run() {
    if (Status st = chooseClassIds(); !st) return st;
    baseClasses();
    classifyObjects();
    globals();
    threads();
    header();
    writeStrings();
    writeLoadClasses();
    // VisualVM takes the records of one tag to be contiguous.
    for (const Bytes* b : {&frames_, &traces_, &threads_}) out_.bytes(b->b.data(), b->b.size());
    if (Status st = writeClassesAndRoots(); !st) return st;
    if (Status st = writeObjects(); !st) return st;
    record(kHeapDumpEnd, 0);
    return Status::success();
  }

 private:
  // ---- strings and classes -------------------------------------------------

  uint64_t str(const std::string& s) {
    auto [it, fresh] = string_ids_.try_emplace(s, strings_.size() + 1);
    if (fresh) strings_.push_back(s);
    return it->second;
  }

  // Class ids share the object id space: they are taken from above the heap
  // (or, when that does not fit the id size, from the page below 64 KiB,
  // which no Go program maps).
  Status chooseClassIds() {
    uint64_t top = d_.params.heap_end;
    const uint32_t n = s_.heap.objectCount();
    if (n > 0) top = std::max(top, d_.objects.addr[n - 1] + d_.objects.size[n - 1]);
    next_class_id_ = (top + 0xffff) & ~uint64_t{0xffff};
    if (id_size_ == 4 && next_class_id_ + (uint64_t{1} << 24) > (uint64_t{1} << 32)) {
      next_class_id_ = 0x1000;
      low_ids_ = true;
    }
    return Status::success();
  }

  uint32_t addClass(ClassDef c) {
    if (c.alias) {
      classes_.push_back(std::move(c));
      return static_cast<uint32_t>(classes_.size() - 1);
    }
    if (low_ids_ && next_class_id_ >= 0x10000) overflowed_ = true;
    c.id = next_class_id_;
    next_class_id_ += 8;
    c.name_id = str(c.vm_name);
    classes_.push_back(std::move(c));
    return static_cast<uint32_t>(classes_.size() - 1);
  }

  void baseClasses() {
    // java.lang.Object's instance size sets VisualVM's header size (2 words)
    // and tells it to take every class's instance size as written.
    ClassDef object;
    object.vm_name = "java/lang/Object";
    object.instance_size = 2 * id_size_;
    object_class_ = addClass(object);
    for (const char* name : {"java/lang/Class", "java/lang/String"}) {
      ClassDef c;
      c.vm_name = name;
      c.instance_size = 2 * id_size_;
      addClass(c);
    }
    // VisualVM's paths to roots need Reference.referent and its four
    // subclasses; Go has no weak references, so they have no instances.
    ClassDef ref;
    ref.vm_name = "java/lang/ref/Reference";
    ref.instance_size = 3 * id_size_;
    ref.fields.push_back(FieldDef{str("referent"), HType::Object, 0, ptr_});
    const uint32_t reference = addClass(ref);
    for (const char* name : {"java/lang/ref/WeakReference", "java/lang/ref/SoftReference",
                             "java/lang/ref/FinalReference", "java/lang/ref/PhantomReference"}) {
      ClassDef c;
      c.vm_name = name;
      c.instance_size = 3 * id_size_;
      c.super_class = reference;
      addClass(c);
    }
    const std::pair<const char*, HType> prims[] = {
        {"[Z", HType::Boolean}, {"[C", HType::Char},  {"[F", HType::Float}, {"[D", HType::Double},
        {"[B", HType::Byte},    {"[S", HType::Short}, {"[I", HType::Int},   {"[J", HType::Long}};
    for (auto [name, type] : prims) {
      ClassDef c;
      c.vm_name = name;
      c.shape = Shape::PrimitiveArray;
      c.element = type;
      prim_class_[static_cast<uint8_t>(type)] = addClass(c);
    }
  }

  // ---- choosing each object's class ------------------------------------------

  // The pointer words of object o holding heap pointers, by offset.
  void heapSlots(NodeId o, std::vector<uint64_t>& slots) const {
    slots.clear();
    const uint8_t* base = d_.objectData(o);
    const WordReader words = d_.words();
    d_.forEachObjectSlot(o, [&](uint64_t off) {
      if (s_.heap.addresses().find(words.read(base + off)) != kNoNode) slots.push_back(off);
    });
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  }

  // Leaf fields of a value of type t at `offset`, named from `path`; false
  // when there are too many.
  bool flatten(TypeId t, uint64_t offset, const std::string& path, int depth,
               std::vector<std::pair<std::string, FieldDef>>& out) const {
    if (out.size() > kMaxTypedFields || depth > 12) return false;
    const TypeId r = dwarf_->resolve(t);
    if (r == kNoType) return true;
    const bin::Type& rt = dwarf_->type(r);
    const uint64_t size = typing::typeSize(*dwarf_, t, ptr_);
    auto leaf = [&](HType type, uint64_t at, uint32_t bytes, const std::string& name) {
      out.push_back({name.empty() ? "value" : name, FieldDef{0, type, at, bytes}});
    };
    auto join = [&](std::string_view name) {
      return path.empty() ? std::string(name) : path + "." + std::string(name);
    };
    const GoKind kind = typing::goKind(*dwarf_, t);
    if (bin::isPointerShaped(kind)) {
      leaf(HType::Object, offset, ptr_, path);
      return true;
    }
    switch (kind) {
      case GoKind::Bool:
        leaf(HType::Boolean, offset, 1, path);
        return true;
      case GoKind::Int8:
      case GoKind::Uint8:
        leaf(HType::Byte, offset, 1, path);
        return true;
      case GoKind::Int16:
      case GoKind::Uint16:
        leaf(HType::Short, offset, 2, path);
        return true;
      case GoKind::Int32:
      case GoKind::Uint32:
        leaf(HType::Int, offset, 4, path);
        return true;
      case GoKind::Int:
      case GoKind::Uint:
      case GoKind::Uintptr:
      case GoKind::Int64:
      case GoKind::Uint64:
        leaf(size == 4 ? HType::Int : HType::Long, offset, size == 4 ? 4 : 8, path);
        return true;
      case GoKind::Float32:
        leaf(HType::Float, offset, 4, path);
        return true;
      case GoKind::Float64:
        leaf(HType::Double, offset, 8, path);
        return true;
      case GoKind::Complex64:
        leaf(HType::Float, offset, 4, join("real"));
        leaf(HType::Float, offset + 4, 4, join("imag"));
        return true;
      case GoKind::Complex128:
        leaf(HType::Double, offset, 8, join("real"));
        leaf(HType::Double, offset + 8, 8, join("imag"));
        return true;
      case GoKind::Array: {
        const uint64_t esize = typing::typeSize(*dwarf_, rt.elem, ptr_);
        if (esize == 0) return true;
        if (rt.count > kMaxTypedFields) return false;
        for (uint64_t i = 0; i < rt.count; i++) {
          if (!flatten(rt.elem, offset + i * esize, path + "[" + std::to_string(i) + "]", depth + 1,
                       out)) {
            return false;
          }
        }
        return true;
      }
      default:
        break;
    }
    // Structs, and strings, slices and interfaces through their DWARF
    // structs (str/len, array/len/cap, tab/data).
    if (rt.tag != bin::DwarfTag::Struct) return true;
    for (const bin::Field& f : dwarf_->fields(rt)) {
      if (f.name == "_") continue;
      if (!flatten(f.type, offset + f.offset, join(f.name), depth + 1, out)) return false;
    }
    return true;
  }

  // The typed layout of a Value-form object, or nothing when it has none
  // hprof can carry.
  const std::vector<std::pair<std::string, FieldDef>>* typedLayout(NodeId o) {
    const TypeId t = s_.types->layout(o);
    const uint64_t key = (uint64_t{t} << 8) | s_.types->dataOffset(o);
    auto it = layouts_.find(key);
    if (it == layouts_.end()) {
      std::vector<std::pair<std::string, FieldDef>> fields;
      if (!flatten(t, s_.types->dataOffset(o), "", 0, fields)) fields.clear();
      it = layouts_.emplace(key, std::move(fields)).first;
    }
    return it->second.empty() ? nullptr : &it->second;
  }

  // True when every slot is the offset of a reference field.
  static bool covers(const std::vector<std::pair<std::string, FieldDef>>& fields,
                     const std::vector<uint64_t>& slots) {
    std::unordered_set<uint64_t> refs;
    for (const auto& [name, f] : fields) {
      if (f.type == HType::Object) refs.insert(f.offset);
    }
    return std::all_of(slots.begin(), slots.end(), [&](uint64_t s) { return refs.count(s) > 0; });
  }

  uint32_t classFor(const std::string& key, const std::function<ClassDef()>& make) {
    auto it = class_by_key_.find(key);
    if (it != class_by_key_.end()) return it->second;
    const uint32_t c = addClass(make());
    class_by_key_.emplace(key, c);
    return c;
  }

  uint32_t instanceClass(const std::string& name, uint32_t size,
                         std::vector<std::pair<std::string, FieldDef>> fields) {
    std::string key = "I" + std::to_string(size) + "|" + name;
    for (const auto& [fname, f] : fields) {
      key += "|" + fname + ":" + std::to_string(f.offset) + ":" +
             std::to_string(static_cast<int>(f.type));
    }
    return classFor(key, [&] {
      ClassDef c;
      c.vm_name = instanceClassName(name);
      c.instance_size = size;
      for (auto& [fname, f] : fields) {
        f.name = str(fname);
        c.fields.push_back(f);
      }
      return c;
    });
  }

  uint32_t objectArrayClass(const std::string& element, uint64_t first_offset) {
    return classFor("A" + std::to_string(first_offset) + "|" + element, [&] {
      ClassDef c;
      c.vm_name = "[L" + element + ";";
      c.shape = Shape::ObjectArray;
      c.first_offset = first_offset;
      return c;
    });
  }

  uint32_t primitiveArray(HType type, uint64_t element_size, uint64_t first_offset) {
    const ClassDef& base = classes_[prim_class_[static_cast<uint8_t>(type)]];
    return classFor("P" + std::to_string(element_size) + ":" + std::to_string(first_offset) + "|" +
                        base.vm_name,
                    [&] {
                      ClassDef c = base;
                      c.element_size = element_size;
                      c.first_offset = first_offset;
                      c.alias = true;
                      return c;
                    });
  }

  // Typed arrays of Go scalars and pointers are Java arrays; the rest are
  // instances.
  std::optional<uint32_t> typedArrayClass(NodeId o) {
    if (s_.types->form(o) == typing::TypeForm::StringBytes) {
      return primitiveArray(HType::Byte, 1, 0);
    }
    if (s_.types->form(o) != typing::TypeForm::Array) return std::nullopt;
    const TypeId t = s_.types->layout(o);
    const uint64_t off = s_.types->dataOffset(o);
    const uint64_t esize = typing::typeSize(*dwarf_, t, ptr_);
    const GoKind kind = typing::goKind(*dwarf_, t);
    if (bin::isPointerShaped(kind)) {
      return objectArrayClass(typing::goTypeName(dwarf_->type(t).name), off);
    }
    switch (kind) {
      case GoKind::Bool:
      case GoKind::Int8:
      case GoKind::Uint8:
        return primitiveArray(HType::Byte, 1, off);
      case GoKind::Int16:
      case GoKind::Uint16:
      case GoKind::Int32:
      case GoKind::Uint32:
      case GoKind::Int:
      case GoKind::Uint:
      case GoKind::Uintptr:
      case GoKind::Int64:
      case GoKind::Uint64:
        return primitiveArray(primitiveOfSize(esize), esize, off);
      case GoKind::Float32:
      case GoKind::Complex64:
        return primitiveArray(HType::Float, 4, off);
      case GoKind::Float64:
      case GoKind::Complex128:
        return primitiveArray(HType::Double, 8, off);
      default:
        return std::nullopt;
    }
  }

  uint32_t classOf(NodeId o, std::vector<uint64_t>& slots) {
    heapSlots(o, slots);
    const std::string name = s_.namer().name(o);
    const uint64_t size = d_.objects.size[o];
    if (dwarf_ != nullptr && s_.types->typed(o)) {
      if (auto c = typedArrayClass(o)) {
        const ClassDef& cd = classes_[*c];
        // Pointer words must fall on elements; a primitive array holds none.
        const bool fits =
            cd.shape == Shape::ObjectArray
                ? std::all_of(slots.begin(), slots.end(),
                              [&](uint64_t s) {
                                return s >= cd.first_offset && (s - cd.first_offset) % ptr_ == 0;
                              })
                : slots.empty();
        if (fits) return *c;
      }
      if (s_.types->form(o) == typing::TypeForm::Value && size <= UINT32_MAX) {
        if (const auto* fields = typedLayout(o); fields != nullptr && covers(*fields, slots)) {
          return instanceClass(name, static_cast<uint32_t>(size), *fields);
        }
      }
    }
    // Untyped (or a typing hprof cannot carry): the pointer words as fields.
    if (slots.size() > kMaxSlotFields || size > UINT32_MAX) return objectArrayClass(name, 0);
    std::vector<std::pair<std::string, FieldDef>> fields;
    for (uint64_t off : slots) {
      fields.push_back({"ptr_" + std::to_string(off), FieldDef{0, HType::Object, off, ptr_}});
    }
    return instanceClass(name, static_cast<uint32_t>(size), std::move(fields));
  }

  void classifyObjects() {
    const uint32_t n = s_.heap.objectCount();
    class_of_.resize(n);
    std::vector<uint64_t> slots;
    for (NodeId o = 0; o < n; o++) {
      if ((o & 0xffff) == 0) progress_.report(o, 2 * uint64_t{n});
      class_of_[o] = classOf(o, slots);
    }
  }

  // ---- globals, goroutines, roots ---------------------------------------------

  // The static field name of the global word at `addr` in `seg`.
  std::pair<std::string, std::string> globalName(const char* seg, uint64_t seg_addr,
                                                 uint64_t addr) const {
    if (s_.exe) {
      if (auto g = s_.exe->globalAt(addr)) {
        const std::string pkg = packageOf(g->name);
        std::string field(g->name.substr(std::min(g->name.size(), pkg.size() + 1)));
        if (g->offset != 0) field += "+" + std::to_string(g->offset);
        return {pkg, field};
      }
    }
    return {std::string("go.") + seg, "+" + formatHex(addr - seg_addr)};
  }

  void segmentStatics(const model::Segment& seg, const char* name, NodeId node) {
    if (!seg.present || node == kNoNode) return;
    const uint8_t* base = d_.bytes(seg.contents).data();
    const WordReader words = d_.words();
    d_.forEachSlot(seg.layout, [&](uint64_t off) {
      const NodeId t = s_.heap.addresses().find(words.read(base + off));
      if (t == kNoNode) return;
      auto [pkg, field] = globalName(name, seg.addr, seg.addr + off);
      statics_.push_back({pkg, field, d_.objects.addr[t]});
    });
  }

  uint32_t packageClass(const std::string& pkg) {
    return classFor("K|" + pkg, [&] {
      ClassDef c;
      c.vm_name = pkg;
      c.instance_size = 2 * id_size_;
      return c;
    });
  }

  void globals() {
    NodeId data = kNoNode, bss = kNoNode;
    for (NodeId r = s_.heap.objectCount(); r < s_.heap.nodeCount(); r++) {
      if (r == s_.heap.superRoot()) continue;
      if (s_.heap.rootKind(r) == graph::RootKind::DataSegment) data = r;
      if (s_.heap.rootKind(r) == graph::RootKind::BssSegment) bss = r;
    }
    segmentStatics(d_.data, "data", data);
    segmentStatics(d_.bss, "bss", bss);
    // A class holds at most 65535 static fields (a u2 count).
    std::map<std::string, size_t> per_package;
    for (const StaticRef& st : statics_) {
      size_t& k = per_package[st.package];
      const std::string cls =
          k / 65535 == 0 ? st.package : st.package + "#" + std::to_string(k / 65535);
      k++;
      const uint32_t pc = packageClass(cls);
      const uint64_t name = str(st.field);
      classes_[pc].statics.push_back({name, {HType::Object, st.target}});
      sticky_.insert(pc);
    }
  }

  // FRAME, TRACE and START THREAD records, one thread per goroutine; frame
  // positions for ROOT JAVA FRAME.
  void threads() {
    const std::vector<analysis::GoroutineInfo> gs = analysis::goroutines(s_);
    frame_position_.assign(d_.frames.size(), -1);
    uint64_t next_frame_id = 1;
    auto frame = [&](const std::string& function, const std::string& file, int64_t line) {
      const uint32_t cls = packageClass(packageOf(function));
      Bytes& b = frames_;
      b.u8(kFrame);
      b.u32(0);
      b.u32(4 * id_size_ + 8);
      b.be(next_frame_id, id_size_);
      b.be(str(function), id_size_);
      b.be(str("()"), id_size_);
      b.be(str(file.empty() ? "?" : file), id_size_);
      b.u32(cls + 1);  // class serial
      b.u32(static_cast<uint32_t>(line > 0 ? line : -1));
      return next_frame_id++;
    };
    for (size_t gi = 0; gi < gs.size() && gi < d_.goroutines.size(); gi++) {
      const analysis::GoroutineInfo& g = gs[gi];
      const model::Goroutine& dg = d_.goroutines[gi];
      std::vector<uint64_t> ids;
      for (size_t fi = 0; fi < g.frames.size(); fi++) {
        const analysis::FrameInfo& f = g.frames[fi];
        for (const analysis::SourceLine& in : f.inlined) {
          ids.push_back(frame(in.function, in.file, in.line));
        }
        if (fi < dg.frame_count) {
          frame_position_[dg.first_frame + fi] = static_cast<int32_t>(ids.size());
        }
        ids.push_back(frame(f.function, f.file, f.line));
      }
      const uint32_t serial = static_cast<uint32_t>(gi + 1);
      Bytes& b = traces_;
      b.u8(kTrace);
      b.u32(0);
      b.u32(static_cast<uint32_t>(12 + ids.size() * id_size_));
      b.u32(serial);
      b.u32(serial);
      b.u32(static_cast<uint32_t>(ids.size()));
      for (uint64_t id : ids) b.be(id, id_size_);
      std::string name = "goroutine " + std::to_string(g.id) + " [" +
                         (g.wait_reason.empty() ? g.status_name : g.wait_reason) + "]";
      Bytes& t = threads_;
      t.u8(kStartThread);
      t.u32(0);
      t.u32(8 + 4 * id_size_);
      t.u32(serial);
      const NodeId gobj = s_.heap.addresses().find(dg.addr);
      t.be(gobj != kNoNode && d_.objects.addr[gobj] == dg.addr ? dg.addr : 0, id_size_);
      t.u32(serial);
      t.be(str(name), id_size_);
      t.be(str(g.is_system ? "system" : "main"), id_size_);
      t.be(0, id_size_);
    }
  }

  // One GC root record per (root, object) edge of goheap's graph, so that
  // the objects roots hold are exactly goheap's.
  void rootRecords(Bytes& b) {
    for (NodeId r = s_.heap.objectCount(); r < s_.heap.nodeCount(); r++) {
      if (r == s_.heap.superRoot()) continue;
      const graph::RootKind kind = s_.heap.rootKind(r);
      const uint32_t rec = s_.heap.rootRecord(r);
      for (NodeId t : s_.heap.successors.neighbors(r)) {
        if (!s_.heap.isObject(t)) continue;
        const uint64_t id = d_.objects.addr[t];
        switch (kind) {
          case graph::RootKind::DataSegment:
          case graph::RootKind::BssSegment:
            break;  // static fields of the package classes
          case graph::RootKind::StackFrame:
            if (d_.frames[rec].goroutine != UINT32_MAX) {
              b.u8(kRootJavaFrame);
              b.be(id, id_size_);
              b.u32(d_.frames[rec].goroutine + 1);
              b.u32(static_cast<uint32_t>(frame_position_[rec]));
            } else {
              b.u8(kRootUnknown);
              b.be(id, id_size_);
            }
            break;
          case graph::RootKind::Goroutine:
            if (id == d_.goroutines[rec].addr) {
              b.u8(kRootThreadObj);
              b.be(id, id_size_);
              b.u32(rec + 1);
              b.u32(rec + 1);
            } else {
              b.u8(kRootThreadBlock);
              b.be(id, id_size_);
              b.u32(rec + 1);
            }
            break;
          case graph::RootKind::QueuedFinalizer:
            b.u8(kRootJniGlobal);
            b.be(id, id_size_);
            b.be(rec + 1, id_size_);
            break;
          default:
            b.u8(kRootUnknown);
            b.be(id, id_size_);
            break;
        }
      }
    }
    for (uint32_t c : sticky_) {
      b.u8(kRootStickyClass);
      b.be(classes_[c].id, id_size_);
    }
  }

  // ---- writing ------------------------------------------------------------------

  void record(uint8_t tag, uint64_t length) {
    out_.u8(tag);
    out_.u32be(0);
    out_.u32be(static_cast<uint32_t>(length));
  }

  void header() {
    out_.text(std::string_view("JAVA PROFILE 1.0.2\0", 19));
    out_.u32be(id_size_);
    out_.u64be(0);  // the dump says not when it was written
  }

  void writeStrings() {
    for (size_t i = 0; i < strings_.size(); i++) {
      record(kUtf8, id_size_ + strings_[i].size());
      out_.idbe(i + 1, id_size_);
      out_.text(strings_[i]);
    }
  }

  bool isAlias(uint32_t c) const { return classes_[c].alias; }

  void writeLoadClasses() {
    for (uint32_t c = 0; c < classes_.size(); c++) {
      if (isAlias(c)) continue;
      record(kLoadClass, 8 + 2 * id_size_);
      out_.u32be(c + 1);
      out_.idbe(classes_[c].id, id_size_);
      out_.u32be(0);
      out_.idbe(classes_[c].name_id, id_size_);
    }
  }

  void classDump(Bytes& b, const ClassDef& c) {
    b.u8(kClassDump);
    b.be(c.id, id_size_);
    b.u32(0);
    const uint64_t super_id = &c == &classes_[object_class_] ? 0
                              : c.super_class != UINT32_MAX  ? classes_[c.super_class].id
                                                             : classes_[object_class_].id;
    b.be(super_id, id_size_);
    for (int i = 0; i < 5; i++) b.be(0, id_size_);  // loader, signers, domain, reserved x2
    b.u32(c.shape == Shape::Instance ? c.instance_size : 0);
    b.u16(0);  // constant pool
    b.u16(static_cast<uint16_t>(c.statics.size()));
    for (const auto& [name, value] : c.statics) {
      b.be(name, id_size_);
      b.u8(static_cast<uint8_t>(value.first));
      b.be(value.second, valueSize(value.first, id_size_));
    }
    b.u16(static_cast<uint16_t>(c.fields.size()));
    for (const FieldDef& f : c.fields) {
      b.be(f.name, id_size_);
      b.u8(static_cast<uint8_t>(f.type));
    }
  }

  Status writeClassesAndRoots() {
    if (overflowed_) return Error("too many classes for 4-byte hprof ids");
    Bytes b;
    for (uint32_t c = 0; c < classes_.size(); c++) {
      if (!isAlias(c)) classDump(b, classes_[c]);
    }
    rootRecords(b);
    if (b.b.size() > UINT32_MAX) return Error("hprof: the classes and roots exceed 4 GiB");
    record(kHeapDumpSegment, b.b.size());
    out_.bytes(b.b.data(), b.b.size());
    return Status::success();
  }

  uint64_t fieldBytes(const ClassDef& c) const {
    uint64_t n = 0;
    for (const FieldDef& f : c.fields) n += valueSize(f.type, id_size_);
    return n;
  }

  uint64_t elements(const ClassDef& c, NodeId o) const {
    const uint64_t size = d_.objects.size[o];
    if (size <= c.first_offset) return 0;
    const uint64_t each = c.shape == Shape::ObjectArray ? ptr_ : c.element_size;
    return (size - c.first_offset) / each;
  }

  uint64_t recordBytes(NodeId o) const {
    const ClassDef& c = classes_[class_of_[o]];
    switch (c.shape) {
      case Shape::Instance:
        return 1 + id_size_ + 4 + id_size_ + 4 + instance_bytes_[class_of_[o]];
      case Shape::ObjectArray:
        return 1 + id_size_ + 4 + 4 + id_size_ + elements(c, o) * id_size_;
      case Shape::PrimitiveArray:
        return 1 + id_size_ + 4 + 4 + 1 + elements(c, o) * valueSize(c.element, id_size_);
    }
    return 0;
  }

  // The heap object `word` points into, as an id; 0 when none or when
  // `off` is not one of the object's pointer words.
  uint64_t reference(const uint8_t* base, uint64_t off, const std::vector<uint64_t>& slots) const {
    if (!std::binary_search(slots.begin(), slots.end(), off)) return 0;
    const NodeId t = s_.heap.addresses().find(d_.words().read(base + off));
    return t == kNoNode ? 0 : d_.objects.addr[t];
  }

  uint64_t readValue(const uint8_t* base, uint64_t size, uint64_t off, uint32_t bytes) const {
    if (off + bytes > size) return 0;
    uint64_t v = 0;
    for (uint32_t i = 0; i < bytes; i++) {
      const uint32_t k = d_.params.big_endian ? i : bytes - 1 - i;
      v = (v << 8) | base[off + k];
    }
    return v;
  }

  // A value of 1, 2, 4 or 8 bytes, big-endian.
  void sized(uint64_t v, uint32_t n) {
    switch (n) {
      case 1:
        out_.u8(static_cast<uint8_t>(v));
        return;
      case 2:
        out_.u16be(static_cast<uint16_t>(v));
        return;
      case 4:
        out_.u32be(static_cast<uint32_t>(v));
        return;
      default:
        out_.u64be(v);
    }
  }

  void writeObject(NodeId o, std::vector<uint64_t>& slots) {
    const ClassDef& c = classes_[class_of_[o]];
    const uint8_t* base = d_.objectData(o);
    const uint64_t size = d_.objects.size[o];
    const uint64_t id = d_.objects.addr[o];
    if (c.shape != Shape::PrimitiveArray) heapSlots(o, slots);
    switch (c.shape) {
      case Shape::Instance:
        out_.u8(kInstanceDump);
        out_.idbe(id, id_size_);
        out_.u32be(0);
        out_.idbe(c.id, id_size_);
        out_.u32be(static_cast<uint32_t>(instance_bytes_[class_of_[o]]));
        for (const FieldDef& f : c.fields) {
          if (f.type == HType::Object) {
            out_.idbe(reference(base, f.offset, slots), id_size_);
          } else {
            const uint32_t n = valueSize(f.type, id_size_);
            // A narrower Go value (a 4-byte int on 32-bit as Long) widens.
            sized(readValue(base, size, f.offset, std::min(n, f.size)), n);
          }
        }
        return;
      case Shape::ObjectArray: {
        const uint64_t n = elements(c, o);
        out_.u8(kObjArrayDump);
        out_.idbe(id, id_size_);
        out_.u32be(0);
        out_.u32be(static_cast<uint32_t>(n));
        out_.idbe(c.id, id_size_);
        for (uint64_t i = 0; i < n; i++) {
          out_.idbe(reference(base, c.first_offset + i * ptr_, slots), id_size_);
        }
        return;
      }
      case Shape::PrimitiveArray: {
        const uint64_t n = elements(c, o);
        out_.u8(kPrimArrayDump);
        out_.idbe(id, id_size_);
        out_.u32be(0);
        out_.u32be(static_cast<uint32_t>(n));
        out_.u8(static_cast<uint8_t>(c.element));
        const uint32_t es = valueSize(c.element, id_size_);
        if (es == 1) {
          out_.bytes(base + c.first_offset, n);
          return;
        }
        for (uint64_t i = 0; i < n; i++) {
          sized(readValue(base, size, c.first_offset + i * c.element_size, es), es);
        }
        return;
      }
    }
  }

  Status writeObjects() {
    instance_bytes_.resize(classes_.size());
    for (size_t c = 0; c < classes_.size(); c++) instance_bytes_[c] = fieldBytes(classes_[c]);
    const uint32_t n = s_.heap.objectCount();
    std::vector<uint64_t> slots;
    NodeId o = 0;
    while (o < n) {
      // Measure a run of objects that fits one segment, then write it.
      uint64_t length = 0;
      NodeId end = o;
      while (end < n) {
        const uint64_t r = recordBytes(end);
        if (end > o && length + r > kSegmentLimit) break;
        length += r;
        end++;
      }
      if (length > UINT32_MAX) {
        return Error("object at " + formatHex(d_.objects.addr[o]) + " is too big for hprof");
      }
      record(kHeapDumpSegment, length);
      for (; o < end; o++) {
        if ((o & 0xffff) == 0) progress_.report(n + uint64_t{o}, 2 * uint64_t{n});
        writeObject(o, slots);
      }
    }
    progress_.report(2 * uint64_t{n}, 2 * uint64_t{n});
    return Status::success();
  }

  const analysis::Snapshot& s_;
  const model::HeapModel& d_;
  WriteProgress progress_;
  Output& out_;
  const uint32_t ptr_;
  uint32_t id_size_ = 8;
  const bin::DebugInfo* dwarf_ = nullptr;

  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint64_t> string_ids_;
  std::vector<ClassDef> classes_;
  std::unordered_map<std::string, uint32_t> class_by_key_;
  std::unordered_map<uint64_t, std::vector<std::pair<std::string, FieldDef>>> layouts_;
  uint32_t prim_class_[12] = {};
  uint32_t object_class_ = 0;
  uint64_t next_class_id_ = 0;
  bool low_ids_ = false, overflowed_ = false;
  std::vector<uint32_t> class_of_;  // per object
  std::vector<uint64_t> instance_bytes_;
  std::vector<StaticRef> statics_;
  std::set<uint32_t> sticky_;
  std::vector<int32_t> frame_position_;  // per dump frame: index in its trace
  Bytes frames_, traces_, threads_;      // FRAME, TRACE and START THREAD records
};

}  // namespace

Status writeHprof(const analysis::Snapshot& s, const ConvertOptions& options, Output& out) {
  return HprofWriter(s, options, out).run();
}

}  // namespace goheap::exporting
