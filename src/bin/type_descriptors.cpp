// Layouts from each release's internal/abi/type.go (runtime/type.go before
// Go 1.21); the facts are Go's, the code goheap's own. With P the pointer
// size, a descriptor starts with the common header of 4P+16 bytes:
//   Size_ @0, PtrBytes @P, Hash @2P, TFlag @2P+4, Align_ @2P+5,
//   FieldAlign_ @2P+6, Kind_ @2P+7 (low 5 bits; Go <= 1.25 keeps
//   KindDirectIface and KindGCProg above them), Equal @2P+8, GCData @3P+8,
//   Str (NameOff) @4P+8, PtrToThis (TypeOff) @4P+12.
// then the kind's tail at T = 4P+16:
//   Array: Elem, Slice, Len.            Chan: Elem, Dir.
//   Func: InCount u16, OutCount u16 (top bit: variadic), padded to P; the
//     parameter types follow the uncommon type, if any.
//   Interface: PkgPath (*name), Methods []Imethod {NameOff, TypeOff}.
//   Map: by release, goruntime/map_layout.h (mapDescriptorLayout).
//   Pointer, Slice: Elem.
//   Struct: PkgPath (*name), Fields []StructField {Name *name, Typ, Offset}.
// An uncommon type (TFlagUncommon) follows the tail: PkgPath NameOff, Mcount
// u16, Xcount u16, Moff u32, 4 unused bytes; Go 1.27's descriptors are then
// followed by their parameter, method or field arrays and Mcount 16-byte
// methods, which is how DescriptorSize walks them.
// A name is a flags byte (1 exported, 2 tag follows, 4 pkgPath follows, 8
// embedded), a varint length and the bytes; then the tag likewise, then a
// 4-byte NameOff of the package path. NameOff and TypeOff are offsets from
// moduledata.types.
#include "bin/type_descriptors.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "goruntime/map_layout.h"

namespace goheap::bin {
namespace {

// abi.TFlag bits goheap reads.
enum TFlag : uint8_t { kTflagUncommon = 1, kTflagExtraStar = 2, kTflagNamed = 4 };
constexpr uint8_t kKindMask = 31;  // Kind_'s kind; the bits above are flags

// Bounds that a corrupt descriptor cannot push a read past: descriptors
// read, members (fields, methods, parameters) of one, a name's length, and
// the nesting of a composite type's name.
constexpr uint64_t kMaxDescriptors = uint64_t{1} << 20, kMaxMembers = uint64_t{1} << 16,
                   kMaxNameLength = uint64_t{1} << 16;
constexpr int kMaxNameDepth = 64;

struct Name {
  std::string text;
  std::string tag;
  std::optional<int32_t> pkg_path_off;
  bool embedded = false;
};

struct RawField {
  Name name;
  uint64_t type = 0;  // descriptor address
  uint64_t offset = 0;
};

struct RawMethod {
  std::string name;
  std::string pkg_path;  // an unexported method's package
  uint64_t type = 0;     // its func type's descriptor, 0 if none
};

// One descriptor as read.
struct Descriptor {
  uint64_t addr = 0;
  uint64_t size = 0;
  uint8_t tflag = 0;
  GoKind kind = GoKind::Invalid;
  std::string str;       // as %T prints it: package names, not paths
  std::string pkg_path;  // of a named type (its uncommon type's)
  uint64_t elem = 0, key = 0, group = 0;
  uint64_t length = 0;  // Array
  uint64_t dir = 0;     // Chan
  std::vector<uint64_t> in, out;
  bool variadic = false;
  std::string struct_pkg_path;  // Struct, Interface: their PkgPath
  std::vector<RawField> fields;
  std::vector<RawMethod> methods;
  uint64_t descriptor_size = 0;  // the bytes DescriptorSize counts (Go 1.27)

  bool named() const { return (tflag & kTflagNamed) != 0; }
};

class DescriptorReader {
 public:
  DescriptorReader(const Container& c, const ModuleLayout& m, const GoVersion& version)
      : c_(c),
        m_(m),
        p_(c.ptr_size),
        header_(4 * p_ + 16),
        map_(goruntime::mapDescriptorLayout(goruntime::mapImplementation(version), version, p_)) {}

  // Reads the descriptor at `addr` and every one it references.
  void readFrom(uint64_t addr) {
    enqueue(addr);
    while (!queue_.empty() && descriptors_.size() < kMaxDescriptors) {
      const uint64_t a = queue_.front();
      queue_.pop_front();
      std::optional<Descriptor> d = read(a);
      if (!d) {
        bad_++;
        continue;
      }
      for (uint64_t r : {d->elem, d->key, d->group}) enqueue(r);
      for (uint64_t r : d->in) enqueue(r);
      for (uint64_t r : d->out) enqueue(r);
      for (const RawField& f : d->fields) enqueue(f.type);
      for (const RawMethod& m : d->methods) enqueue(m.type);
      index_[a] = descriptors_.size();
      descriptors_.push_back(std::move(*d));
    }
  }

  void readTypelinks() {
    for (uint64_t i = 0; i < std::min(m_.typelinks_count, kMaxDescriptors); i++) {
      const std::optional<ByteView> b = c_.readAt(m_.typelinks + 4 * i, 4);
      if (!b) break;
      readFrom(m_.types +
               static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(b->u32(0)))));
    }
  }

  // itab: Inter *InterfaceType, Type *Type, ...
  void readItablinks() {
    for (uint64_t i = 0; i < std::min(m_.itablinks_count, kMaxDescriptors); i++) {
      const std::optional<uint64_t> itab = c_.pointerAt(m_.itablinks + i * p_);
      if (!itab) break;
      readFrom(c_.pointerAt(*itab).value_or(0));
      readFrom(c_.pointerAt(*itab + p_).value_or(0));
    }
  }

  // Go 1.27: every descriptor, in order (runtime/type.go's typelinksinit:
  // the first starts a word past types, each at a word boundary).
  void walkDescriptors() {
    const uint64_t end = m_.types + m_.type_descriptors_size;
    uint64_t at = m_.types + p_;
    while (at < end && descriptors_.size() < kMaxDescriptors) {
      at = (at + p_ - 1) / p_ * p_;
      readFrom(at);
      auto it = index_.find(at);
      if (it == index_.end()) break;  // not a descriptor: the walk cannot go on
      at += descriptors_[it->second].descriptor_size;
    }
  }

  uint64_t bad() const { return bad_; }
  std::vector<Descriptor>& descriptors() { return descriptors_; }
  const std::unordered_map<uint64_t, size_t>& index() const { return index_; }

 private:
  void enqueue(uint64_t addr) {
    if (addr == 0 || index_.count(addr) != 0 || !queued_.insert(addr).second) return;
    queue_.push_back(addr);
  }
  std::optional<ByteView> bytes(uint64_t addr, uint64_t n) const { return c_.readAt(addr, n); }
  std::optional<uint64_t> word(uint64_t addr) const {
    std::optional<ByteView> b = bytes(addr, p_);
    if (!b) return std::nullopt;
    return b->word(0, p_);
  }
  uint64_t pointer(uint64_t addr) const { return c_.pointerAt(addr).value_or(0); }
  std::optional<int32_t> i32(uint64_t addr) const {
    std::optional<ByteView> b = bytes(addr, 4);
    if (!b) return std::nullopt;
    return static_cast<int32_t>(b->u32(0));
  }
  uint64_t offsetAddress(int32_t off) const {
    return m_.types + static_cast<uint64_t>(static_cast<int64_t>(off));
  }

  std::optional<Name> readName(uint64_t addr) const {
    if (addr == 0) return std::nullopt;
    std::optional<ByteView> head = bytes(addr, 1);
    if (!head) return std::nullopt;
    const uint8_t flags = head->u8(0);
    uint64_t at = addr + 1;
    auto varint = [&]() -> std::optional<uint64_t> {
      uint64_t v = 0;
      for (int shift = 0; shift < 35; shift += 7) {
        std::optional<ByteView> b = bytes(at++, 1);
        if (!b) return std::nullopt;
        v |= uint64_t{b->u8(0) & 0x7fu} << shift;
        if ((b->u8(0) & 0x80) == 0) return v;
      }
      return std::nullopt;
    };
    auto text = [&]() -> std::optional<std::string> {
      std::optional<uint64_t> n = varint();
      if (!n || *n > kMaxNameLength) return std::nullopt;
      std::optional<ByteView> b = bytes(at, *n);
      if (!b) return std::nullopt;
      at += *n;
      return std::string(reinterpret_cast<const char*>(b->bytes().data()), *n);
    };
    Name n;
    std::optional<std::string> t = text();
    if (!t) return std::nullopt;
    n.text = std::move(*t);
    if ((flags & 2) != 0) {
      std::optional<std::string> tag = text();
      if (!tag) return std::nullopt;
      n.tag = std::move(*tag);
    }
    if ((flags & 4) != 0) n.pkg_path_off = i32(at);
    n.embedded = (flags & 8) != 0;
    return n;
  }
  std::string nameAtOffset(int32_t off) const {
    std::optional<Name> n = readName(offsetAddress(off));
    return n ? n->text : std::string();
  }
  std::string pkgPathOf(const Name& n) const {
    return n.pkg_path_off ? nameAtOffset(*n.pkg_path_off) : std::string();
  }

  // The size of a kind's tail struct, where the uncommon type starts.
  uint64_t tailSize(GoKind k) const {
    const uint64_t p = p_;
    switch (k) {
      case GoKind::Array:
        return 3 * p;
      case GoKind::Chan:
        return 2 * p;
      case GoKind::Func:
        return (4 + p - 1) / p * p;
      case GoKind::Interface:
      case GoKind::Struct:
        return 4 * p;
      case GoKind::Map:
        return map_.tail_size;
      case GoKind::Pointer:
      case GoKind::Slice:
        return p;
      default:
        return 0;
    }
  }

  // Reads a slice header {ptr, len, cap} at addr: its data and length.
  std::optional<std::pair<uint64_t, uint64_t>> slice(uint64_t addr) const {
    std::optional<uint64_t> n = word(addr + p_), cap = word(addr + 2 * p_);
    if (!n || !cap || *n > *cap || *n > kMaxMembers) return std::nullopt;
    return std::pair{pointer(addr), *n};
  }

  // An interface's or struct's tail: its PkgPath into d, and its methods'
  // or fields' slice.
  std::optional<std::pair<uint64_t, uint64_t>> pkgPathAndMembers(uint64_t tail,
                                                                 Descriptor& d) const {
    if (std::optional<Name> pkg = readName(pointer(tail))) d.struct_pkg_path = pkg->text;
    return slice(tail + p_);
  }

  std::optional<Descriptor> read(uint64_t a) const {
    if (m_.etypes != 0 && (a < m_.types || a >= m_.etypes)) return std::nullopt;
    std::optional<ByteView> h = bytes(a, header_);
    if (!h) return std::nullopt;
    Descriptor d;
    d.addr = a;
    d.size = h->word(0, p_);
    const uint64_t ptrdata = h->word(p_, p_);
    d.tflag = h->u8(2 * p_ + 4);
    const uint8_t kind = h->u8(2 * p_ + 7) & kKindMask;
    if (kind == 0 || kind > static_cast<uint8_t>(GoKind::UnsafePointer)) return std::nullopt;
    if (ptrdata > d.size || d.size > (uint64_t{1} << 48)) return std::nullopt;
    d.kind = static_cast<GoKind>(kind);
    const int32_t str = static_cast<int32_t>(h->u32(4 * p_ + 8));
    std::optional<Name> s = readName(offsetAddress(str));
    if (!s) return std::nullopt;
    d.str = std::move(s->text);
    if ((d.tflag & kTflagExtraStar) != 0 && !d.str.empty() && d.str[0] == '*') d.str.erase(0, 1);

    const uint64_t t = a + header_;
    const uint64_t uncommon = t + tailSize(d.kind);
    uint64_t members = 0;  // the bytes of arrays Go 1.27 puts after the uncommon type
    switch (d.kind) {
      case GoKind::Array:
        d.elem = pointer(t);
        d.length = word(t + 2 * p_).value_or(0);
        break;
      case GoKind::Chan:
        d.elem = pointer(t);
        d.dir = word(t + p_).value_or(0);
        break;
      case GoKind::Pointer:
      case GoKind::Slice:
        d.elem = pointer(t);
        break;
      case GoKind::Map:
        d.key = pointer(t + map_.key);
        d.elem = pointer(t + map_.elem);
        d.group = pointer(t + map_.group);
        break;
      case GoKind::Func: {
        std::optional<ByteView> counts = bytes(t, 4);
        if (!counts) return std::nullopt;
        const uint16_t in = counts->u16(0), out_raw = counts->u16(2);
        const uint16_t out = out_raw & 0x7fff;
        d.variadic = (out_raw & 0x8000) != 0;
        const uint64_t params = uncommon + ((d.tflag & kTflagUncommon) != 0 ? 16 : 0);
        for (uint64_t i = 0; i < uint64_t{in} + out; i++) {
          (i < in ? d.in : d.out).push_back(pointer(params + i * p_));
        }
        members = (uint64_t{in} + out) * p_;
        break;
      }
      case GoKind::Interface: {
        const auto ms = pkgPathAndMembers(t, d);
        if (!ms) return std::nullopt;
        for (uint64_t i = 0; i < ms->second; i++) {
          std::optional<int32_t> name = i32(ms->first + 8 * i);
          std::optional<int32_t> type = i32(ms->first + 8 * i + 4);
          if (!name || !type) return std::nullopt;
          RawMethod m;
          if (std::optional<Name> n = readName(offsetAddress(*name))) {
            m.name = n->text;
            m.pkg_path = pkgPathOf(*n);
          }
          m.type = *type > 0 ? offsetAddress(*type) : 0;
          d.methods.push_back(std::move(m));
        }
        members = ms->second * 8;
        break;
      }
      case GoKind::Struct: {
        const auto fs = pkgPathAndMembers(t, d);
        if (!fs) return std::nullopt;
        for (uint64_t i = 0; i < fs->second; i++) {
          const uint64_t f = fs->first + i * 3 * p_;
          std::optional<Name> n = readName(pointer(f));
          std::optional<uint64_t> off = word(f + 2 * p_);
          if (!n || !off || *off > d.size) return std::nullopt;
          d.fields.push_back({std::move(*n), pointer(f + p_), *off});
        }
        members = fs->second * 3 * p_;
        break;
      }
      default:
        break;
    }
    uint64_t methods = 0;
    if ((d.tflag & kTflagUncommon) != 0) {
      std::optional<ByteView> u = bytes(uncommon, 16);
      if (!u) return std::nullopt;
      d.pkg_path = nameAtOffset(static_cast<int32_t>(u->u32(0)));
      methods = u->u16(4);
    }
    d.descriptor_size = header_ + tailSize(d.kind) + ((d.tflag & kTflagUncommon) != 0 ? 16 : 0) +
                        members + methods * 16;
    return d;
  }

  const Container& c_;
  const ModuleLayout& m_;
  uint32_t p_;
  uint64_t header_;
  goruntime::MapDescriptorLayout map_;
  std::vector<Descriptor> descriptors_;
  std::unordered_map<uint64_t, size_t> index_;
  std::unordered_set<uint64_t> queued_;
  std::deque<uint64_t> queue_;
  uint64_t bad_ = 0;
};

// Turns descriptors into a DebugInfo in the shape of Go's DWARF.
class TableBuilder {
 public:
  TableBuilder(std::vector<Descriptor>& ds, const std::unordered_map<uint64_t, size_t>& index,
               const ModuleLayout& m, const GoVersion& version, uint32_t ptr_size)
      : ds_(ds),
        index_(index),
        m_(m),
        go_minor_(version.minor.value_or(0)),
        p_(ptr_size),
        maps_(goruntime::mapImplementation(version)) {}

  DebugInfo build(DescriptorCounts& counts) {
    types_.resize(ds_.size());
    names_.resize(ds_.size());
    composing_.assign(ds_.size(), false);
    for (const Descriptor& d : ds_) learnPackage(d);
    for (size_t i = 0; i < ds_.size(); i++) nameGroup(i);
    for (size_t i = 0; i < ds_.size(); i++) names_[i] = nameOf(i, 0);
    for (size_t i = 0; i < ds_.size(); i++) fill(static_cast<TypeId>(i));
    counts.descriptors = ds_.size();
    counts.synthesized = types_.size() - ds_.size();
    // Names into one block the DebugInfo keeps.
    size_t total = 0;
    for (const std::string& n : names_) total += n.size();
    std::vector<std::unique_ptr<uint8_t[]>> storage;
    storage.push_back(std::make_unique<uint8_t[]>(total + 1));
    char* at = reinterpret_cast<char*>(storage.back().get());
    for (size_t i = 0; i < names_.size(); i++) {
      std::memcpy(at, names_[i].data(), names_[i].size());
      types_[i].name = std::string_view(at, names_[i].size());
      at += names_[i].size();
    }
    // Field names likewise.
    size_t field_total = 0;
    for (const auto& [index, name] : field_names_) field_total += name.size();
    storage.push_back(std::make_unique<uint8_t[]>(field_total + 1));
    at = reinterpret_cast<char*>(storage.back().get());
    for (const auto& [index, name] : field_names_) {
      std::memcpy(at, name.data(), name.size());
      fields_[index].name = std::string_view(at, name.size());
      at += name.size();
    }
    return DebugInfo::fromParts(std::move(types_), std::move(fields_), {}, std::move(storage));
  }

 private:
  TypeId idOf(uint64_t addr) const {
    auto it = index_.find(addr);
    return it == index_.end() ? kNoType : static_cast<TypeId>(it->second);
  }

  // The short package name a named type's %T string uses, mapped to its
  // import path: how type arguments, which %T spells with short names, get
  // their paths back.
  void learnPackage(const Descriptor& d) {
    if (!d.named() || d.pkg_path.empty() || spelledOut(d)) return;
    const size_t dot = qualifierEnd(d.str);
    if (dot == std::string::npos) return;
    const std::string short_name = d.str.substr(0, dot);
    // Two packages may share a name (sync, internal/sync): the one whose
    // path is the name itself wins, else the first seen.
    auto [it, added] = short_to_path_.try_emplace(short_name, d.pkg_path);
    if (!added && d.pkg_path == short_name) it->second = d.pkg_path;
    // And the type itself, which settles such cases exactly.
    const size_t bracket = d.str.find('[');
    const std::string plain = d.str.substr(0, bracket);
    const std::string full = d.pkg_path + plain.substr(dot);
    auto [t, new_type] = short_type_to_full_.try_emplace(plain, full);
    if (!new_type && t->second != full) t->second.clear();  // ambiguous
  }
  // A named type whose string already has its path: the compiler's
  // "go.shape.int", whose package path "go.shape" has a dot of its own.
  static bool spelledOut(const Descriptor& d) {
    return d.pkg_path.find('.') != std::string::npos && d.str.starts_with(d.pkg_path + ".");
  }
  // Where the package qualifier of a named type's string ends ("pkg.T[...]").
  static size_t qualifierEnd(const std::string& s) {
    const size_t bracket = s.find('[');
    const size_t dot = s.find('.');
    return dot < bracket ? dot : std::string::npos;
  }
  // Replaces short package qualifiers inside type arguments with paths.
  std::string qualifyArguments(const std::string& args) const {
    std::string out;
    size_t i = 0;
    while (i < args.size()) {
      const char c = args[i];
      if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
        size_t j = i;
        while (j < args.size() &&
               (std::isalnum(static_cast<unsigned char>(args[j])) != 0 || args[j] == '_')) {
          j++;
        }
        const std::string word = args.substr(i, j - i);
        // Only a qualifier: not the middle of one ("go.shape.T").
        const bool starts = i == 0 || (args[i - 1] != '.' && args[i - 1] != '/');
        if (starts && j < args.size() && args[j] == '.') {
          size_t k = j + 1;
          while (k < args.size() &&
                 (std::isalnum(static_cast<unsigned char>(args[k])) != 0 || args[k] == '_')) {
            k++;
          }
          auto type = short_type_to_full_.find(args.substr(i, k - i));
          if (type != short_type_to_full_.end() && !type->second.empty()) {
            out += type->second;
            i = k;
            continue;
          }
          auto it = short_to_path_.find(word);
          out += it != short_to_path_.end() ? it->second : word;
        } else {
          out += word;
        }
        i = j;
        continue;
      }
      out += c;
      i++;
    }
    return out;
  }

  // The compiler's map bucket or group type and its parts have no name in
  // their descriptors, but the linker names them in DWARF as
  // "noalg.map.group[K]V" (goruntime::compilerGroupName), its arrays
  // "noalg.[8]struct { key K; elem V }" or "noalg.[8]K", and a slot
  // "noalg.struct { key K; elem V }": the typing pass knows groups by name.
  void nameGroup(size_t i) {
    const Descriptor& d = ds_[i];
    if (d.kind != GoKind::Map) return;
    const TypeId g = idOf(d.group);
    if (g == kNoType || ds_[g].named() || !names_[g].empty()) return;
    const std::string k = nameOfAddress(d.key, 1), v = nameOfAddress(d.elem, 1);
    names_[g] = goruntime::compilerGroupName(maps_, k, v);
    const std::string_view slots = goruntime::mapLayout(maps_).fields.slots;
    for (const RawField& f : ds_[g].fields) {
      const TypeId a = idOf(f.type);
      if (a == kNoType || ds_[a].named() || ds_[a].kind != GoKind::Array) continue;
      if (!goruntime::isGroupArrayField(f.name.text)) continue;
      if (names_[a].starts_with("noalg.")) continue;  // shared with another map's
      names_[a] = "noalg." + nameOf(a, 1);
      const TypeId slot = idOf(ds_[a].elem);
      if (f.name.text == slots && slot != kNoType && !ds_[slot].named()) {
        const std::string plain = nameOf(slot, 1);
        names_[slot] = "noalg." + plain;
        names_[a] = "noalg.[" + std::to_string(ds_[a].length) + "]" + plain;
      }
    }
  }

  std::string nameOfAddress(uint64_t addr, int depth) {
    const TypeId id = idOf(addr);
    return id == kNoType ? "?" : nameOf(id, depth);
  }

  // The type's name as Go's linker writes it into DWARF: %T's form with
  // full import paths.
  //
  // A corrupt table can make composed names grow exponentially (a func
  // whose every parameter is a func of many parameters, and so on) or refer
  // back to a type whose name is being composed: such a type is named by
  // the runtime's own string instead, as is any name past kMaxNameLength.
  std::string nameOf(size_t i, int depth) {
    if (names_[i].empty()) {
      if (depth > kMaxNameDepth || composing_[i]) return ds_[i].str;
      composing_[i] = true;
      std::string name = composeName(ds_[i], depth);
      composing_[i] = false;
      names_[i] = name.size() <= kMaxNameLength ? std::move(name) : ds_[i].str;
    }
    return names_[i];
  }
  std::string composeName(const Descriptor& d, int depth) {
    if (d.named()) {
      const size_t dot = qualifierEnd(d.str);
      if (d.pkg_path.empty() || dot == std::string::npos || spelledOut(d)) return d.str;
      std::string rest = d.str.substr(dot);
      const size_t bracket = rest.find('[');
      if (bracket != std::string::npos) {
        rest = rest.substr(0, bracket) + qualifyArguments(rest.substr(bracket));
      }
      return d.pkg_path + rest;
    }
    const int next = depth + 1;
    switch (d.kind) {
      case GoKind::Pointer:
        return "*" + nameOfAddress(d.elem, next);
      case GoKind::Slice:
        return "[]" + nameOfAddress(d.elem, next);
      case GoKind::Array:
        return "[" + std::to_string(d.length) + "]" + nameOfAddress(d.elem, next);
      case GoKind::Map:
        return "map[" + nameOfAddress(d.key, next) + "]" + nameOfAddress(d.elem, next);
      case GoKind::Chan: {
        const std::string elem = nameOfAddress(d.elem, next);
        if (d.dir == 1) return "<-chan " + elem;
        if (d.dir == 2) return "chan<- " + elem;
        const TypeId e = idOf(d.elem);
        if (e != kNoType && ds_[e].kind == GoKind::Chan && ds_[e].dir == 1 && !ds_[e].named()) {
          return "chan (" + elem + ")";
        }
        return "chan " + elem;
      }
      case GoKind::Func:
        return "func" + signature(d, next);
      case GoKind::Interface:
        if (d.methods.empty()) return "interface {}";
        return braced("interface { ", d.methods, [&](const RawMethod& m, std::string& s) {
          if (!m.pkg_path.empty() && !isExported(m.name)) s += m.pkg_path + ".";
          s += m.name;
          const TypeId f = idOf(m.type);
          s += f == kNoType ? "()" : signature(ds_[f], next);
        });
      case GoKind::Struct:
        if (d.fields.empty()) return "struct {}";
        return braced("struct { ", d.fields, [&](const RawField& f, std::string& s) {
          if (!f.name.embedded) {
            if (!d.struct_pkg_path.empty() && !isExported(f.name.text)) {
              s += d.struct_pkg_path + ".";
            }
            s += f.name.text + " ";
          }
          s += nameOfAddress(f.type, next);
          // Appended, not " " + ...: GCC 12 at -O3 warns (-Wrestrict) on that form.
          if (!f.name.tag.empty()) s.append(" ").append(quote(f.name.tag));
        });
      default:
        return d.str;
    }
  }

  // "interface { M(); N() }", "struct { a int; b string }": `open`, then
  // each item as `append` writes it, "; " between, cut off once the name is
  // past kMaxNameLength (a runaway type stays readable).
  template <class Item, class Append>
  static std::string braced(std::string open, const std::vector<Item>& items, Append&& append) {
    for (size_t k = 0; k < items.size() && open.size() <= kMaxNameLength; k++) {
      if (k > 0) open += "; ";
      append(items[k], open);
    }
    return open + " }";
  }

  static bool isExported(const std::string& name) {
    return !name.empty() && std::isupper(static_cast<unsigned char>(name[0])) != 0;
  }
  // A Go double-quoted string literal (strconv.Quote for the tags Go uses).
  static std::string quote(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  }
  // "(int, ...string) (bool, error)" of a func type.
  std::string signature(const Descriptor& f, int depth) {
    std::string s = "(";
    for (size_t k = 0; k < f.in.size() && s.size() <= kMaxNameLength; k++) {
      if (k > 0) s += ", ";
      if (f.variadic && k + 1 == f.in.size()) {
        const TypeId slice = idOf(f.in[k]);
        s += "..." + (slice == kNoType ? "?" : nameOfAddress(ds_[slice].elem, depth));
      } else {
        s += nameOfAddress(f.in[k], depth);
      }
    }
    s += ")";
    if (f.out.size() == 1) s += " " + nameOfAddress(f.out[0], depth);
    if (f.out.size() > 1) {
      s += " (";
      for (size_t k = 0; k < f.out.size() && s.size() <= kMaxNameLength; k++) {
        if (k > 0) s += ", ";
        s += nameOfAddress(f.out[k], depth);
      }
      s += ")";
    }
    return s;
  }

  // --- Types in DWARF's shape ---

  TypeId add(Type t, std::string name) {
    types_.push_back(t);
    names_.push_back(std::move(name));
    return static_cast<TypeId>(types_.size() - 1);
  }
  // A synthesized type, made once per name.
  template <class Make>
  TypeId synthesized(const std::string& name, Make make) {
    auto it = synthesized_.find(name);
    if (it != synthesized_.end()) return it->second;
    const TypeId id = make();
    synthesized_.emplace(name, id);
    return id;
  }
  // A synthesized type without parts: a base type, or a pointer whose
  // target the table does not hold.
  TypeId leaf(const std::string& name, DwarfTag tag, GoKind kind, uint64_t size) {
    return synthesized(name, [&] {
      Type t;
      t.tag = tag;
      t.kind = kind;
      t.size = size;
      return add(t, name);
    });
  }
  TypeId base(const std::string& name, GoKind kind, uint64_t size) {
    return leaf(name, DwarfTag::Base, kind, size);
  }
  TypeId intType() { return base("int", GoKind::Int, p_); }
  TypeId uintType() { return base("uint", GoKind::Uint, p_); }
  TypeId uintptrType() { return base("uintptr", GoKind::Uintptr, p_); }
  // A pointer whose target the table does not hold (unsafe.Pointer, the
  // runtime's *_type and *itab in interfaces).
  TypeId opaquePointer(const std::string& name, GoKind kind) {
    return leaf(name, DwarfTag::Pointer, kind, p_);
  }
  TypeId unsafePointer() { return opaquePointer("unsafe.Pointer", GoKind::UnsafePointer); }
  TypeId pointerTo(TypeId target, const std::string& target_name) {
    const std::string name = "*" + target_name;
    return synthesized(name, [&] {
      Type t;
      t.tag = DwarfTag::Pointer;
      t.kind = GoKind::Pointer;
      t.size = p_;
      t.elem = t.target = target;
      return add(t, name);
    });
  }
  TypeId pointerTo(TypeId target) { return pointerTo(target, names_[target]); }

  // A struct of `fields` ({name, offset, type}).
  TypeId structOf(const std::string& name, uint64_t size, GoKind kind,
                  const std::vector<std::tuple<std::string, uint64_t, TypeId>>& fields) {
    Type t;
    t.tag = DwarfTag::Struct;
    t.kind = kind;
    t.size = size;
    t.first_field = static_cast<uint32_t>(fields_.size());
    for (const auto& [fname, offset, type] : fields) addField(fname, offset, type, false);
    t.field_count = static_cast<uint32_t>(fields_.size()) - t.first_field;
    return add(t, name);
  }
  void addField(const std::string& name, uint64_t offset, TypeId type, bool embedded) {
    field_names_.emplace_back(fields_.size(), name);
    fields_.push_back({{}, offset, type, embedded});
  }

  TypeId eface() {
    return synthesized("runtime.eface", [&] {
      return structOf("runtime.eface", 2 * p_, GoKind::Struct,
                      {{"_type", 0, runtimeTypePointer()}, {"data", p_, unsafePointer()}});
    });
  }
  TypeId iface() {
    return synthesized("runtime.iface", [&] {
      const TypeId tab = opaquePointer("*runtime.itab", GoKind::Pointer);
      return structOf("runtime.iface", 2 * p_, GoKind::Struct,
                      {{"tab", 0, tab}, {"data", p_, unsafePointer()}});
    });
  }
  TypeId runtimeTypePointer() { return opaquePointer("*runtime._type", GoKind::Pointer); }

  // hchan<T>: the fields the readers use; its size by release (a timer since
  // Go 1.23, a synctest bubble since 1.25).
  TypeId hchan(TypeId elem) {
    const std::string name = "hchan<" + names_[elem] + ">";
    return synthesized(name, [&] {
      const uint64_t words = 8 + (go_minor_ >= 23 ? 1 : 0) + (go_minor_ >= 25 ? 1 : 0);
      const uint64_t head = 3 * p_ + 8;  // elemsize u16, closed u32 at 3P+4
      const TypeId u16 = base("uint16", GoKind::Uint16, 2);
      const TypeId u32 = base("uint32", GoKind::Uint32, 4);
      return structOf(
          name, head + words * p_, GoKind::Struct,
          {{"qcount", 0, uintType()},
           {"dataqsiz", p_, uintType()},
           {"buf", 2 * p_, unsafePointer()},
           {"elemsize", 3 * p_, u16},
           {"closed", 3 * p_ + 4, u32},
           // after the timer of Go 1.23+
           {"elemtype", 3 * p_ + 8 + (go_minor_ >= 23 ? p_ : 0), runtimeTypePointer()}});
    });
  }

  // The runtime's map header for map type `d` (whose key and elem ids are
  // k and v), as goruntime::mapStructs lays it out: hash<K,V> with
  // bucket<K,V>, or map<K,V> with table<K,V>.
  TypeId mapHeader(const Descriptor& d, TypeId k, TypeId v) {
    const std::string kv = names_[k] + "," + names_[v];
    const TypeId group = idOf(d.group);
    const goruntime::MapStructs structs = goruntime::mapStructs(maps_, p_);
    const std::string name = std::string(structs.header.name_prefix) + kv + ">";
    if (auto it = synthesized_.find(name); it != synthesized_.end()) return it->second;
    // The base types first, so that type ids do not depend on which field
    // needs one first.
    base("uint8", GoKind::Uint8, 1);
    base("uint16", GoKind::Uint16, 2);
    base("uint32", GoKind::Uint32, 4);
    base("uint64", GoKind::Uint64, 8);
    MapFieldTypes types;
    if (maps_ == goruntime::MapImplementation::Buckets) {
      const TypeId bucket = bucketOf(group, kv);
      types.bucket_array = bucket == kNoType ? unsafePointer() : pointerTo(bucket);
      return mapStruct(structs.header, kv, types);
    }
    types.group_array = group == kNoType ? unsafePointer() : pointerTo(group);
    types.group_reference = mapStruct(structs.group_reference, kv, types);
    types.table_directory = pointerTo(pointerTo(mapStruct(structs.table, kv, types)));
    return mapStruct(structs.header, kv, types);
  }

  // The types of a map struct's fields that depend on K and V.
  struct MapFieldTypes {
    TypeId bucket_array = kNoType, table_directory = kNoType, group_array = kNoType,
           group_reference = kNoType;
  };

  TypeId mapStruct(const goruntime::MapStruct& s, const std::string& kv,
                   const MapFieldTypes& types) {
    const std::string name = std::string(s.name_prefix) + kv + ">";
    return synthesized(name, [&] {
      std::vector<std::tuple<std::string, uint64_t, TypeId>> fields;
      for (const goruntime::MapField& f : s.fields) {
        fields.emplace_back(std::string(f.name), f.offset, mapFieldType(f.type, types));
      }
      return structOf(name, s.size, GoKind::Struct, fields);
    });
  }

  TypeId mapFieldType(goruntime::MapFieldType t, const MapFieldTypes& types) {
    using enum goruntime::MapFieldType;
    switch (t) {
      case Int:
        return intType();
      case Uint8:
        return base("uint8", GoKind::Uint8, 1);
      case Uint16:
        return base("uint16", GoKind::Uint16, 2);
      case Uint32:
        return base("uint32", GoKind::Uint32, 4);
      case Uint64:
        return base("uint64", GoKind::Uint64, 8);
      case Uintptr:
        return uintptrType();
      case UnsafePointer:
        return unsafePointer();
      case BucketArray:
        return types.bucket_array;
      case TableDirectory:
        return types.table_directory;
      case GroupArray:
        return types.group_array;
      case GroupReference:
        return types.group_reference;
    }
    return kNoType;
  }

  // bucket<K,V>: the bucket descriptor's fields under DWARF's names
  // (tophash, keys, values, overflow).
  TypeId bucketOf(TypeId bucket, const std::string& kv) {
    if (bucket == kNoType) return kNoType;
    const std::string name = std::string(goruntime::mapLayout(maps_).bucket_prefix) + kv + ">";
    return synthesized(name, [&] {
      Type t;
      t.tag = DwarfTag::Struct;
      t.kind = GoKind::Struct;
      t.size = ds_[bucket].size;
      const TypeId id = add(t, name);
      const uint32_t first = static_cast<uint32_t>(fields_.size());
      for (const RawField& f : ds_[bucket].fields) {
        std::string fname(goruntime::bucketFieldDwarfName(f.name.text));
        TypeId type = idOf(f.type);
        if (fname == "overflow") type = pointerTo(id, name);
        addField(fname, f.offset, type, false);
      }
      types_[id].first_field = first;
      types_[id].field_count = static_cast<uint32_t>(fields_.size()) - first;
      return id;
    });
  }

  void fill(TypeId i) {
    const Descriptor& d = ds_[i];
    Type t;
    t.kind = d.kind;
    t.size = d.size;
    t.runtime_type = d.addr - m_.types;
    switch (d.kind) {
      case GoKind::String: {
        t.tag = DwarfTag::Struct;
        const TypeId u8 = base("uint8", GoKind::Uint8, 1);
        const TypeId bytes = pointerTo(u8);
        t.first_field = static_cast<uint32_t>(fields_.size());
        addField("str", 0, bytes, false);
        addField("len", p_, intType(), false);
        t.field_count = 2;
        break;
      }
      case GoKind::UnsafePointer:
        t.tag = DwarfTag::Pointer;
        break;
      case GoKind::Pointer:
        t.tag = DwarfTag::Pointer;
        t.elem = t.target = idOf(d.elem);
        break;
      case GoKind::Slice: {
        t.tag = DwarfTag::Struct;
        t.elem = idOf(d.elem);
        const TypeId array = t.elem == kNoType ? unsafePointer() : pointerTo(t.elem);
        t.first_field = static_cast<uint32_t>(fields_.size());
        addField("array", 0, array, false);
        addField("len", p_, intType(), false);
        addField("cap", 2 * p_, intType(), false);
        t.field_count = 3;
        break;
      }
      case GoKind::Array:
        t.tag = DwarfTag::Array;
        t.count = d.length;
        t.elem = t.target = idOf(d.elem);
        break;
      case GoKind::Struct:
        t.tag = DwarfTag::Struct;
        t.first_field = static_cast<uint32_t>(fields_.size());
        for (const RawField& f : d.fields) {
          addField(f.name.text, f.offset, idOf(f.type), f.name.embedded);
        }
        t.field_count = static_cast<uint32_t>(d.fields.size());
        break;
      case GoKind::Interface:
        t.tag = DwarfTag::Typedef;
        t.target = d.methods.empty() ? eface() : iface();
        break;
      case GoKind::Map: {
        t.tag = DwarfTag::Typedef;
        t.key = idOf(d.key);
        t.elem = idOf(d.elem);
        if (t.key != kNoType && t.elem != kNoType)
          t.target = pointerTo(mapHeader(d, t.key, t.elem));
        break;
      }
      case GoKind::Chan:
        t.tag = DwarfTag::Typedef;
        t.elem = idOf(d.elem);
        if (t.elem != kNoType) t.target = pointerTo(hchan(t.elem));
        break;
      case GoKind::Func:
        t.tag = DwarfTag::Subroutine;
        break;
      default:
        t.tag = DwarfTag::Base;
        break;
    }
    types_[i] = t;
  }

  std::vector<Descriptor>& ds_;
  const std::unordered_map<uint64_t, size_t>& index_;
  const ModuleLayout& m_;
  int go_minor_;
  uint32_t p_;
  goruntime::MapImplementation maps_;
  std::vector<Type> types_;
  std::vector<std::string> names_;
  std::vector<bool> composing_;  // whose name nameOf is composing now
  std::vector<Field> fields_;
  std::vector<std::pair<size_t, std::string>> field_names_;
  std::unordered_map<std::string, TypeId> synthesized_;
  std::map<std::string, std::string> short_to_path_;
  // "sync.poolChainElt" -> "sync.poolChainElt" or "internal/sync.T"; empty
  // when two types share the short form.
  std::map<std::string, std::string> short_type_to_full_;
};

}  // namespace

Expected<DebugInfo> readTypeDescriptors(const Container& c, const ModuleLayout& m,
                                        const GoVersion& version, std::span<const uint64_t> roots,
                                        DescriptorCounts* counts) {
  if (m.types == 0) {
    return Error("the executable's module layout does not say where its type descriptors are");
  }
  DescriptorReader reader(c, m, version);
  if (version.atLeast(27) && m.type_descriptors_size != 0) reader.walkDescriptors();
  reader.readTypelinks();
  reader.readItablinks();
  for (uint64_t r : roots) reader.readFrom(r);
  if (reader.descriptors().empty()) {
    return Error("no type descriptor could be read from [" + std::to_string(m.types) + ", " +
                 std::to_string(m.etypes) + ")");
  }
  DescriptorCounts local;
  DescriptorCounts& n = counts != nullptr ? *counts : local;
  n.bad = reader.bad();
  TableBuilder builder(reader.descriptors(), reader.index(), m, version, c.ptr_size);
  return builder.build(n);
}

}  // namespace goheap::bin
