// One pass over .debug_info builds the arrays; references between DIEs
// (which may point forward, and across units: Go's types live in their own
// unit) are kept as raw .debug_info offsets until the pass ends, then turned
// into TypeIds.
#include "bin/debug_info.h"

#include <algorithm>

#include "bin/dwarf_location.h"
#include "bin/dwarf_reader.h"
#include "bin/dwarf_sections.h"

namespace goheap::bin {

namespace {

using dwarf::FormValue;
using dwarf::UnitContext;

constexpr uint64_t kNoRef = UINT64_MAX;

// DW_TAG_*.
constexpr uint32_t kTagArray = 0x01;
constexpr uint32_t kTagFormalParameter = 0x05;
constexpr uint32_t kTagLexicalBlock = 0x0b;
constexpr uint32_t kTagMember = 0x0d;
constexpr uint32_t kTagPointer = 0x0f;
constexpr uint32_t kTagStructure = 0x13;
constexpr uint32_t kTagSubroutineType = 0x15;
constexpr uint32_t kTagTypedef = 0x16;
constexpr uint32_t kTagInlinedSubroutine = 0x1d;
constexpr uint32_t kTagSubrange = 0x21;
constexpr uint32_t kTagBase = 0x24;
constexpr uint32_t kTagSubprogram = 0x2e;
constexpr uint32_t kTagVariable = 0x34;
constexpr uint32_t kTagUnspecifiedType = 0x3b;

// DW_AT_* and Go's own.
constexpr uint32_t kAtLocation = 0x02;
constexpr uint32_t kAtName = 0x03;
constexpr uint32_t kAtByteSize = 0x0b;
constexpr uint32_t kAtLowPc = 0x11;
constexpr uint32_t kAtHighPc = 0x12;
constexpr uint32_t kAtUpperBound = 0x2f;
constexpr uint32_t kAtAbstractOrigin = 0x31;
constexpr uint32_t kAtCount = 0x37;
constexpr uint32_t kAtDataMemberLocation = 0x38;
constexpr uint32_t kAtFrameBase = 0x40;
constexpr uint32_t kAtType = 0x49;
constexpr uint32_t kAtStrOffsetsBase = 0x72;
constexpr uint32_t kAtAddrBase = 0x73;
constexpr uint32_t kAtLoclistsBase = 0x8c;
constexpr uint32_t kAtGoKind = 0x2900;
constexpr uint32_t kAtGoKey = 0x2901;
constexpr uint32_t kAtGoElem = 0x2902;
constexpr uint32_t kAtGoEmbeddedField = 0x2903;
constexpr uint32_t kAtGoRuntimeType = 0x2904;

std::optional<DwarfTag> typeTag(uint32_t tag) {
  switch (tag) {
    case kTagBase:
      return DwarfTag::Base;
    case kTagPointer:
      return DwarfTag::Pointer;
    case kTagStructure:
      return DwarfTag::Struct;
    case kTagArray:
      return DwarfTag::Array;
    case kTagTypedef:
      return DwarfTag::Typedef;
    case kTagSubroutineType:
      return DwarfTag::Subroutine;
    case kTagUnspecifiedType:
      return DwarfTag::Unspecified;
    default:
      return std::nullopt;
  }
}

// The attributes of one DIE that goheap reads; the rest are skipped.
struct Attrs {
  FormValue name, byte_size, type, location, low_pc, high_pc, upper_bound, origin, count,
      member_location, frame_base, go_kind, go_key, go_elem, go_embedded, go_runtime_type,
      str_offsets_base, addr_base, loclists_base;

  void set(uint32_t attr, const FormValue& v) {
    switch (attr) {
      case kAtName:
        name = v;
        break;
      case kAtByteSize:
        byte_size = v;
        break;
      case kAtType:
        type = v;
        break;
      case kAtLocation:
        location = v;
        break;
      case kAtLowPc:
        low_pc = v;
        break;
      case kAtHighPc:
        high_pc = v;
        break;
      case kAtUpperBound:
        upper_bound = v;
        break;
      case kAtAbstractOrigin:
        origin = v;
        break;
      case kAtCount:
        count = v;
        break;
      case kAtDataMemberLocation:
        member_location = v;
        break;
      case kAtFrameBase:
        frame_base = v;
        break;
      case kAtGoKind:
        go_kind = v;
        break;
      case kAtGoKey:
        go_key = v;
        break;
      case kAtGoElem:
        go_elem = v;
        break;
      case kAtGoEmbeddedField:
        go_embedded = v;
        break;
      case kAtGoRuntimeType:
        go_runtime_type = v;
        break;
      case kAtStrOffsetsBase:
        str_offsets_base = v;
        break;
      case kAtAddrBase:
        addr_base = v;
        break;
      case kAtLoclistsBase:
        loclists_base = v;
        break;
      default:
        break;
    }
  }
};

// What an open DIE with children is, for its children.
struct Scope {
  enum Kind : uint8_t { Other, Unit, Type, Function, Abstract } kind = Other;
  uint32_t index = 0;              // Type: its TypeId; Function: into functions
  uint32_t function = UINT32_MAX;  // the enclosing function, through blocks
  bool inlined = false;            // inside a DW_TAG_inlined_subroutine
};

// Cross-DIE references of the pass, as .debug_info offsets.
struct TypeRefs {
  uint64_t target = kNoRef, elem = kNoRef, key = kNoRef;
};
struct PendingField {
  TypeId owner;
  Field field;
  uint64_t type = kNoRef;
};
struct PendingVariable {
  uint32_t function;
  FrameVariable var;
  uint64_t type = kNoRef, origin = kNoRef;
};
struct PendingFunction {
  uint64_t origin = kNoRef;
};
struct PendingGlobal {
  uint64_t type = kNoRef;
};
// A DIE of an abstract (inlinable) function that concrete DIEs name as their
// DW_AT_abstract_origin: they take its name and type.
struct Origin {
  uint64_t offset;
  std::string_view name;
  uint64_t type = kNoRef;
};

}  // namespace

class DebugInfoBuilder {
 public:
  explicit DebugInfoBuilder(DwarfSections s) : s_(std::move(s)) {}

  Expected<DebugInfo> build() {
    if (s_.abbrev.size() == 0) return Error("no DWARF: .debug_info without .debug_abbrev");
    uint64_t at = 0;
    while (at < s_.info.size()) {
      GOHEAP_TRY(auto u, dwarf::readUnitHeader(s_.info, at));
      Status st = readUnit(u);
      if (!st) return st.error();
      at = u.end;
    }
    link();
    return std::move(out_);
  }

 private:
  Expected<const dwarf::AbbrevTable*> abbrevs(uint64_t offset) {
    auto it = abbrev_cache_.find(offset);
    if (it != abbrev_cache_.end()) return &it->second;
    GOHEAP_TRY(auto t, dwarf::AbbrevTable::read(s_.abbrev, offset));
    return &abbrev_cache_.emplace(offset, std::move(t)).first->second;
  }

  Status readUnit(const dwarf::UnitHeader& header) {
    GOHEAP_TRY(auto table, abbrevs(header.abbrev_offset));
    UnitContext u(s_, header);
    // The unit's bytes only: a DIE running past its unit is corrupt.
    dwarf::Cursor c(s_.info.sub(0, header.end), header.die_start, ".debug_info");
    std::vector<Scope> stack;
    while (c.pos() < header.end) {
      const uint64_t die = c.pos();
      const uint64_t code = c.uleb();
      if (!c.ok()) return c.error();
      if (code == 0) {  // ends the children of the innermost open DIE
        if (!stack.empty()) stack.pop_back();
        continue;
      }
      const dwarf::Abbrev* a = table->find(code);
      if (a == nullptr) {
        return Error::atOffset(die, ".debug_info",
                               "unknown abbreviation code " + std::to_string(code));
      }
      Attrs attrs;
      for (const dwarf::AttrSpec& spec : table->specs(*a)) {
        attrs.set(spec.attr, dwarf::readForm(c, spec, header));
      }
      if (!c.ok()) return c.error();
      const Scope parent = stack.empty() ? Scope{} : stack.back();
      const Scope scope = visit(u, die, a->tag, attrs, parent, stack.empty());
      if (a->children) stack.push_back(scope);
    }
    return Status::success();
  }

  // Records one DIE; returns what it is to its children.
  Scope visit(UnitContext& u, uint64_t die, uint32_t tag, const Attrs& at, const Scope& parent,
              bool top) {
    Scope inherit{Scope::Other, 0, parent.function, parent.inlined};
    if (parent.kind == Scope::Abstract) inherit.kind = Scope::Abstract;
    if (top) {
      readUnitBases(u, at);
      return Scope{Scope::Unit};
    }
    if (auto t = typeTag(tag)) return Scope{Scope::Type, addType(u, die, *t, at)};
    switch (tag) {
      case kTagMember:
        if (parent.kind == Scope::Type) addField(u, parent.index, at);
        return inherit;
      case kTagSubrange:
        if (parent.kind == Scope::Type) {
          int64_t n = 0;
          if (u.constant(at.count, n)) {
            out_.types_[parent.index].count = static_cast<uint64_t>(n);
          } else if (u.constant(at.upper_bound, n)) {
            out_.types_[parent.index].count = static_cast<uint64_t>(n) + 1;
          }
        }
        return inherit;
      case kTagSubprogram:
        return addFunction(u, die, at, parent);
      case kTagVariable:
      case kTagFormalParameter:
        if (parent.kind == Scope::Abstract) {
          addOrigin(u, die, at);
        } else if (parent.function != UINT32_MAX) {
          addVariable(u, tag, at, parent);
        } else if (tag == kTagVariable && parent.kind == Scope::Unit) {
          addGlobal(u, at);
        }
        return inherit;
      case kTagInlinedSubroutine:
        inherit.inlined = parent.function != UINT32_MAX;
        return inherit;
      case kTagLexicalBlock:
      default:
        return inherit;
    }
  }

  void readUnitBases(UnitContext& u, const Attrs& at) {
    if (at.str_offsets_base.present()) u.unit().str_offsets_base = at.str_offsets_base.u;
    if (at.addr_base.present()) u.unit().addr_base = at.addr_base.u;
    if (at.loclists_base.present()) u.unit().loclists_base = at.loclists_base.u;
    uint64_t low = 0;
    if (u.address(at.low_pc, low)) u.unit().low_pc = low;
  }

  uint64_t ref(const UnitContext& u, const FormValue& v) {
    uint64_t off = kNoRef;
    return u.reference(v, off) ? off : kNoRef;
  }

  TypeId addType(const UnitContext& u, uint64_t die, DwarfTag tag, const Attrs& at) {
    Type t;
    t.offset = die;
    t.tag = tag;
    t.name = u.string(at.name);
    int64_t v = 0;
    if (u.constant(at.byte_size, v)) t.size = static_cast<uint64_t>(v);
    if (u.constant(at.go_kind, v) && v > 0 && v <= static_cast<int64_t>(GoKind::UnsafePointer)) {
      t.kind = static_cast<GoKind>(v);
    }
    // Go writes the runtime type as DW_FORM_addr; accept a constant too.
    if (!u.address(at.go_runtime_type, t.runtime_type) && u.constant(at.go_runtime_type, v)) {
      t.runtime_type = static_cast<uint64_t>(v);
    }
    t.first_field = static_cast<uint32_t>(pending_fields_.size());
    TypeRefs r;
    r.target = ref(u, at.type);
    r.elem = ref(u, at.go_elem);
    r.key = ref(u, at.go_key);
    has_own_size_.push_back(at.byte_size.present());
    type_refs_.push_back(r);
    out_.types_.push_back(t);
    return static_cast<TypeId>(out_.types_.size() - 1);
  }

  void addField(const UnitContext& u, TypeId owner, const Attrs& at) {
    PendingField f{owner, {}, ref(u, at.type)};
    f.field.name = u.string(at.name);
    int64_t v = 0;
    if (u.constant(at.member_location, v)) {
      f.field.offset = static_cast<uint64_t>(v);
    } else if (!at.member_location.data.empty() &&
               at.member_location.data[0] == dwarf::kOpPlusUconst) {
      // DWARF 2 style: DW_OP_plus_uconst N.
      dwarf::Cursor c(ByteView(at.member_location.data, false), 1, "member location");
      f.field.offset = c.uleb();
    }
    f.field.embedded = at.go_embedded.present() && at.go_embedded.u != 0;
    pending_fields_.push_back(f);
  }

  Scope addFunction(const UnitContext& u, uint64_t die, const Attrs& at, const Scope& parent) {
    uint64_t low = 0;
    if (parent.function != UINT32_MAX || !u.address(at.low_pc, low)) {
      // No code: the abstract DIE of an inlinable function, whose children
      // the concrete copies refer to.
      addOrigin(u, die, at);
      return Scope{Scope::Abstract};
    }
    Function f;
    f.name = u.string(at.name);
    f.low_pc = low;
    int64_t len = 0;
    if (!u.address(at.high_pc, f.high_pc)) {
      f.high_pc = u.constant(at.high_pc, len) ? low + static_cast<uint64_t>(len) : low;
    }
    const auto& fb = at.frame_base.data;
    frame_base_is_cfa_.push_back(fb.size() == 1 && fb[0] == dwarf::kOpCallFrameCfa);
    pending_functions_.push_back({ref(u, at.origin)});
    out_.functions_.push_back(f);
    const auto index = static_cast<uint32_t>(out_.functions_.size() - 1);
    return Scope{Scope::Function, index, index, false};
  }

  void addOrigin(const UnitContext& u, uint64_t die, const Attrs& at) {
    origins_.push_back({die, u.string(at.name), ref(u, at.type)});
  }

  void addVariable(const UnitContext& u, uint32_t tag, const Attrs& at, const Scope& parent) {
    PendingVariable p{parent.function, {}, ref(u, at.type), ref(u, at.origin)};
    p.var.name = u.string(at.name);
    p.var.parameter = tag == kTagFormalParameter;
    p.var.inlined = parent.inlined;
    const bool cfa = frame_base_is_cfa_[parent.function];
    const FormValue& loc = at.location;
    switch (loc.form) {
      case dwarf::kFormExprloc:
      case dwarf::kFormBlock1:
      case dwarf::kFormBlock2:
      case dwarf::kFormBlock4:
      case dwarf::kFormBlock:
        p.var.cfa_offset = dwarf::cfaOffsetOf(loc.data, cfa);
        break;
      case dwarf::kFormSecOffset:
        p.var.cfa_offset = dwarf::locListCfaOffset(u, loc.u, cfa);
        if (!p.var.cfa_offset) addRanges(u, loc.u, cfa, p.var);
        break;
      case dwarf::kFormData4:
      case dwarf::kFormData8:  // DWARF 2 and 3 point at location lists so
        if (u.unit().version < 4) p.var.cfa_offset = dwarf::locListCfaOffset(u, loc.u, cfa);
        break;
      case dwarf::kFormLoclistx:
        if (auto off = dwarf::locListxOffset(u, loc.u)) {
          p.var.cfa_offset = dwarf::locListCfaOffset(u, *off, cfa);
          if (!p.var.cfa_offset) addRanges(u, *off, cfa, p.var);
        }
        break;
      default:
        break;
    }
    pending_variables_.push_back(p);
  }

  // The per-PC places of a variable whose location list has no one offset.
  void addRanges(const UnitContext& u, uint64_t list, bool cfa, FrameVariable& v) {
    v.first_location = static_cast<uint32_t>(out_.locations_.size());
    if (u.unit().version >= 5) {
      dwarf::locListRangesV5(u, list, cfa, out_.locations_);
    } else {
      dwarf::locListRangesV4(u, list, cfa, out_.locations_);
    }
    v.location_count = static_cast<uint32_t>(out_.locations_.size() - v.first_location);
  }

  void addGlobal(const UnitContext& u, const Attrs& at) {
    // Only variables at a fixed address: DW_OP_addr A, or DW_OP_addrx I.
    const auto& x = at.location.data;
    if (x.empty()) return;
    GlobalVariable g;
    dwarf::Cursor c(ByteView(x, s_.info.bigEndian()), 1, "global location");
    if (x[0] == dwarf::kOpAddr) {
      g.address = c.sized(u.unit().addr_size);
    } else if (x[0] == dwarf::kOpAddrx) {
      if (!u.indexedAddress(c.uleb(), g.address)) return;
    } else {
      return;
    }
    if (!c.ok() || !c.atEnd()) return;
    g.name = u.string(at.name);
    out_.globals_.push_back(g);
    pending_globals_.push_back({ref(u, at.type)});
  }

  // The TypeId of the type DIE at `offset`, kNoType when none is there.
  TypeId typeAt(uint64_t offset) const {
    const auto& ts = out_.types_;
    auto it = std::lower_bound(ts.begin(), ts.end(), offset,
                               [](const Type& t, uint64_t o) { return t.offset < o; });
    if (it == ts.end() || it->offset != offset) return kNoType;
    return static_cast<TypeId>(it - ts.begin());
  }

  const Origin* originAt(uint64_t offset) const {
    auto it = std::lower_bound(origins_.begin(), origins_.end(), offset,
                               [](const Origin& o, uint64_t off) { return o.offset < off; });
    return it == origins_.end() || it->offset != offset ? nullptr : &*it;
  }

  // Turns the pass's offsets into TypeIds and indexes, and sorts.
  void link() {
    auto& d = out_;
    for (size_t i = 0; i < d.types_.size(); ++i) {
      Type& t = d.types_[i];
      const TypeRefs& r = type_refs_[i];
      t.target = typeAt(r.target);
      t.elem = r.elem != kNoRef ? typeAt(r.elem) : t.target;
      t.key = typeAt(r.key);
    }
    // A typedef has no size of its own: its target's (a chain of typedefs,
    // bounded in case of a cycle).
    for (size_t i = 0; i < d.types_.size(); ++i) {
      Type& t = d.types_[i];
      if (t.tag != DwarfTag::Typedef || has_own_size_[i]) continue;
      TypeId at = t.target;
      for (size_t hops = 0; at != kNoType && hops < 64; ++hops) {
        const Type& next = d.types_[at];
        if (next.tag != DwarfTag::Typedef || has_own_size_[at]) {
          t.size = next.size;
          break;
        }
        at = next.target;
      }
    }

    // Fields: grouped by owner (DIE order keeps each struct's in order).
    std::stable_sort(
        pending_fields_.begin(), pending_fields_.end(),
        [](const PendingField& a, const PendingField& b) { return a.owner < b.owner; });
    d.fields_.reserve(pending_fields_.size());
    for (auto& t : d.types_) t.first_field = t.field_count = 0;
    for (const PendingField& p : pending_fields_) {
      Type& owner = d.types_[p.owner];
      if (owner.field_count == 0) owner.first_field = static_cast<uint32_t>(d.fields_.size());
      ++owner.field_count;
      Field f = p.field;
      f.type = typeAt(p.type);
      d.fields_.push_back(f);
    }

    // Functions and their variables, which may name an abstract origin.
    for (size_t i = 0; i < d.functions_.size(); ++i) {
      if (const Origin* o = originAt(pending_functions_[i].origin);
          o && d.functions_[i].name.empty()) {
        d.functions_[i].name = o->name;
      }
    }
    std::stable_sort(
        pending_variables_.begin(), pending_variables_.end(),
        [](const PendingVariable& a, const PendingVariable& b) { return a.function < b.function; });
    d.variables_.reserve(pending_variables_.size());
    for (PendingVariable& p : pending_variables_) {
      Function& f = d.functions_[p.function];
      if (f.variable_count == 0) f.first_variable = static_cast<uint32_t>(d.variables_.size());
      ++f.variable_count;
      if (const Origin* o = originAt(p.origin)) {
        if (p.var.name.empty()) p.var.name = o->name;
        if (p.type == kNoRef) p.type = o->type;
      }
      p.var.type = typeAt(p.type);
      d.variables_.push_back(p.var);
    }
    std::stable_sort(d.functions_.begin(), d.functions_.end(),
                     [](const Function& a, const Function& b) { return a.low_pc < b.low_pc; });

    for (size_t i = 0; i < d.globals_.size(); ++i)
      d.globals_[i].type = typeAt(pending_globals_[i].type);
    std::stable_sort(
        d.globals_.begin(), d.globals_.end(),
        [](const GlobalVariable& a, const GlobalVariable& b) { return a.address < b.address; });

    d.by_name_.reserve(d.types_.size());
    for (size_t i = 0; i < d.types_.size(); ++i) {
      const Type& t = d.types_[i];
      d.by_name_.emplace(t.name, static_cast<TypeId>(i));
      if (t.runtime_type != 0) d.by_runtime_type_.emplace(t.runtime_type, static_cast<TypeId>(i));
    }
    // Keep only what names point into (.debug_info's inline strings,
    // .debug_str, .debug_line_str): location lists and the like are done
    // with, and .debug_loc is the largest DWARF section of Go executables.
    for (auto& block : s_.owned) {
      const uint8_t* p = block.get();
      if (p == s_.info.bytes().data() || p == s_.str.bytes().data() ||
          p == s_.line_str.bytes().data()) {
        d.owned_.push_back(std::move(block));
      }
    }
  }

  DwarfSections s_;
  DebugInfo out_;
  std::unordered_map<uint64_t, dwarf::AbbrevTable> abbrev_cache_;
  std::vector<TypeRefs> type_refs_;
  std::vector<bool> has_own_size_;
  std::vector<PendingField> pending_fields_;
  std::vector<PendingVariable> pending_variables_;
  std::vector<PendingFunction> pending_functions_;
  std::vector<PendingGlobal> pending_globals_;
  std::vector<bool> frame_base_is_cfa_;
  std::vector<Origin> origins_;
};

Expected<DebugInfo> DebugInfo::read(const Container& c) {
  GOHEAP_TRY(auto s, DwarfSections::load(c));
  return DebugInfoBuilder(std::move(s)).build();
}

const Field* DebugInfo::fieldNamed(const Type& owner, std::string_view name) const {
  for (const Field& f : fields(owner)) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const Field* DebugInfo::fieldNamed(TypeId t, std::string_view name) const {
  const TypeId r = resolve(t);
  return r == kNoType ? nullptr : fieldNamed(type(r), name);
}

TypeId DebugInfo::resolve(TypeId t) const {
  for (size_t hops = 0; t != kNoType && t < types_.size() && hops <= types_.size(); ++hops) {
    if (types_[t].tag != DwarfTag::Typedef) return t;
    t = types_[t].target;
  }
  return t != kNoType && t < types_.size() && types_[t].tag != DwarfTag::Typedef ? t : kNoType;
}

TypeId DebugInfo::typeByRuntimeAddress(uint64_t addr) const {
  auto it = by_runtime_type_.find(addr);
  return it == by_runtime_type_.end() ? kNoType : it->second;
}

DebugInfo DebugInfo::fromParts(std::vector<Type> types, std::vector<Field> fields,
                               std::vector<GlobalVariable> globals,
                               std::vector<std::unique_ptr<uint8_t[]>> storage) {
  DebugInfo d;
  d.owned_ = std::move(storage);
  d.types_ = std::move(types);
  d.fields_ = std::move(fields);
  d.globals_ = std::move(globals);
  std::stable_sort(
      d.globals_.begin(), d.globals_.end(),
      [](const GlobalVariable& a, const GlobalVariable& b) { return a.address < b.address; });
  for (size_t i = 0; i < d.types_.size(); ++i) {
    if (!d.types_[i].name.empty()) d.by_name_.emplace(d.types_[i].name, static_cast<TypeId>(i));
    if (d.types_[i].runtime_type != 0) {
      d.by_runtime_type_.emplace(d.types_[i].runtime_type, static_cast<TypeId>(i));
    }
  }
  return d;
}

TypeId DebugInfo::typeByName(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? kNoType : it->second;
}

const GlobalVariable* DebugInfo::globalAt(uint64_t addr) const {
  auto it = std::upper_bound(globals_.begin(), globals_.end(), addr,
                             [](uint64_t a, const GlobalVariable& g) { return a < g.address; });
  // Zero-sized globals share their address with the variable that follows
  // them: step over them to the sized one, which alone can hold addr (unless
  // addr is exactly a zero-sized one's address and nothing sized starts there).
  const GlobalVariable* empty_here = nullptr;
  while (it != globals_.begin()) {
    --it;
    const uint64_t size = it->type == kNoType ? 0 : types_[it->type].size;
    if (size == 0) {
      if (it->address == addr && empty_here == nullptr) empty_here = &*it;
      continue;
    }
    if (addr - it->address < size) return &*it;
    break;
  }
  return empty_here;
}

const Function* DebugInfo::functionAt(uint64_t pc) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), pc,
                             [](uint64_t p, const Function& f) { return p < f.low_pc; });
  if (it == functions_.begin()) return nullptr;
  --it;
  return pc < it->high_pc ? &*it : nullptr;
}

}  // namespace goheap::bin
