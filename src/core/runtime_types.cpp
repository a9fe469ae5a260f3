#include "core/runtime_types.h"

#include <vector>

#include "util/go_version.h"

namespace goheap::core {
namespace {

// Appends the types and fields of `t` to a DebugInfo's parts: the structs
// first (their ids are their indices in t.structs), then one type per field.
class PartsBuilder {
 public:
  PartsBuilder(const goruntime::RuntimeTable& t, uint32_t ptr_size) : t_(t), ptr_(ptr_size) {
    types_.resize(t.structs.size());
    for (size_t i = 0; i < t.structs.size(); ++i) {
      const std::string_view name = t.structs[i].name;
      types_[i].name = name;
      types_[i].tag = bin::DwarfTag::Struct;
      types_[i].kind = bin::GoKind::Struct;
      types_[i].size = t.structs[i].size;
      const auto first = static_cast<uint32_t>(fields_.size());
      for (const goruntime::TableField& f : t.fields) {
        if (f.owner != name) continue;
        // fieldType() grows types_: no reference into it is held across.
        const bin::TypeId type = fieldType(f);
        fields_.push_back({f.name, f.offset, type, false});
      }
      types_[i].first_field = first;
      types_[i].field_count = static_cast<uint32_t>(fields_.size()) - first;
    }
  }

  bin::TypeId structId(std::string_view name) const {
    for (size_t i = 0; i < t_.structs.size(); ++i) {
      if (t_.structs[i].name == name) return static_cast<bin::TypeId>(i);
    }
    return bin::kNoType;
  }
  bin::TypeId add(bin::Type t) {
    types_.push_back(t);
    return static_cast<bin::TypeId>(types_.size() - 1);
  }
  bin::TypeId array(uint64_t count, uint64_t size, bin::TypeId elem) {
    bin::Type a;
    a.tag = bin::DwarfTag::Array;
    a.kind = bin::GoKind::Array;
    a.count = count;
    a.size = size;
    a.elem = a.target = elem;
    return add(a);
  }
  bin::TypeId scalar(uint64_t size) {
    bin::Type b;
    b.tag = bin::DwarfTag::Base;
    b.size = size;
    return add(b);
  }

  std::vector<bin::Type> types_;
  std::vector<bin::Field> fields_;

 private:
  bin::TypeId fieldType(const goruntime::TableField& f) {
    if (!f.type.empty()) {
      if (const bin::TypeId s = structId(f.type); s != bin::kNoType) {
        return f.count == 0 ? s : array(f.count, f.size, s);
      }
    }
    if (f.count == 0) return scalar(f.size);
    bin::TypeId elem = bin::kNoType;
    if (f.inner_count != 0) {
      // [count]*[inner_count]T: the inner array's element is not needed.
      bin::Type p;
      p.tag = bin::DwarfTag::Pointer;
      p.kind = bin::GoKind::Pointer;
      p.size = ptr_;
      p.elem = p.target = array(f.inner_count, 0, bin::kNoType);
      elem = add(p);
    }
    return array(f.count, f.size, elem);
  }

  const goruntime::RuntimeTable& t_;
  uint32_t ptr_;
};

}  // namespace

bin::DebugInfo tableDebugInfo(const goruntime::RuntimeTable& t, const RuntimeGlobals& g,
                              uint32_t ptr_size) {
  PartsBuilder b(t, ptr_size);
  std::vector<bin::GlobalVariable> globals = {
      {"runtime.mheap_", g.mheap, b.structId("runtime.mheap")},
      {"runtime.allgs", g.allgs, b.scalar(3 * ptr_size)},
      {"runtime.firstmoduledata", g.firstmoduledata, b.structId("runtime.moduledata")},
  };
  if (g.wait_reasons != 0) {
    const uint64_t n = t.wait_reasons.size();
    globals.push_back({"runtime.waitReasonStrings", g.wait_reasons,
                       b.array(n, n * 2 * ptr_size, b.scalar(2 * ptr_size))});
  }
  if (g.memstats != 0) {
    globals.push_back({"runtime.memstats", g.memstats, b.structId("runtime.mstats")});
  }
  if (g.mbuckets != 0) {
    globals.push_back({"runtime.mbuckets", g.mbuckets, b.scalar(ptr_size)});
  }
  if (g.gc_controller != 0) {
    globals.push_back(
        {"runtime.gcController", g.gc_controller, b.structId("runtime.gcControllerState")});
  }
  if (g.itab_table != 0) {
    globals.push_back({"runtime.itabTable", g.itab_table, b.scalar(ptr_size)});
  }
  return bin::DebugInfo::fromParts(std::move(b.types_), std::move(b.fields_), std::move(globals));
}

Expected<RuntimeTypes> runtimeTypes(const bin::Binary& exe, const MemoryImage& mem) {
  if (const bin::DebugInfo* dwarf = exe.debugInfo()) return RuntimeTypes{"DWARF", dwarf, nullptr};
  const std::string& arch = exe.container().arch;
  const GoVersion v = parseGoVersion(exe.goVersion());
  if (!v.experiments.empty()) {
    return Error("the executable has no DWARF, and its GOEXPERIMENT " + std::string(v.experiments) +
                 " may change the runtime layouts goheap knows for " + exe.goVersion());
  }
  const goruntime::RuntimeTable* table = goruntime::runtimeTableFor(exe.goVersion(), arch);
  if (table == nullptr) {
    return Error("the executable has no DWARF (" + exe.debugInfoProblem() +
                 "), and goheap has no runtime layouts for " + exe.goVersion() + " " + arch);
  }
  GOHEAP_TRY(auto globals, findRuntimeGlobals(exe, mem, *table));
  return RuntimeTypes{"layout table " + std::string(table->go_version) + " " + arch, nullptr,
                      std::make_shared<const bin::DebugInfo>(
                          tableDebugInfo(*table, globals, exe.container().ptr_size))};
}

}  // namespace goheap::core
