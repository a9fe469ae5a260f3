// What the code says globals hold (bin/global_stores.h), against the DWARF
// of the same executable: every sighting of a global that DWARF can check
// must agree with the global's declared type (NewObject(T) and
// NewArray(T): the word is a *T or a []T's data pointer; Value(T): the word
// is a T). The test programs of every release, linked every way; a
// non-amd64 build gives no sightings.
#include "bin/global_stores.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "bin/binary.h"
#include "support/go_versions.h"
#include "support/param_names.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using bin::DebugInfo;
using bin::GoKind;
using bin::kNoType;
using bin::TypeId;

std::vector<std::string> amd64Executables() {
  std::vector<std::string> out =
      testing::inEachVersion({"zoo", "leaks", "retention", "funcs", "inlining", "modinfo"});
  for (const std::string v : {"go1.24", "go1.26", "go1.27"}) {
    for (const std::string m : {"pie", "external", "external-pie"})
      out.push_back(v + "/" + m + "/zoo");
  }
  return out;
}

// One step into a value of type t toward `offset`: the field or element
// holding it, with `offset` made relative to that; kNoType when t is no
// struct or array (Go's slices, strings and interfaces are structs in
// DWARF) or nothing there holds it.
TypeId stepInto(const DebugInfo& dw, TypeId t, uint64_t& offset) {
  const TypeId r = dw.resolve(t);
  if (r == kNoType) return kNoType;
  const bin::Type& rt = dw.type(r);
  if (rt.tag == bin::DwarfTag::Struct) {
    const bin::Field* inside = nullptr;
    for (const bin::Field& f : dw.fields(rt)) {
      const uint64_t size = std::max<uint64_t>(dw.type(f.type).size, 1);
      if (offset >= f.offset && offset < f.offset + size) inside = &f;
    }
    if (inside == nullptr) return kNoType;
    offset -= inside->offset;
    return inside->type;
  }
  if (rt.tag == bin::DwarfTag::Array && dw.type(rt.elem).size > 0) {
    offset %= dw.type(rt.elem).size;
    return rt.elem;
  }
  return kNoType;
}

// The type of the pointer-sized word at `offset` into a value of type t;
// kNoType when no leaf starts there.
TypeId leafAt(const DebugInfo& dw, TypeId t, uint64_t offset) {
  for (int depth = 0; depth < 32 && t != kNoType; depth++) {
    const TypeId r = dw.resolve(t);
    if (r == kNoType) return kNoType;
    if (offset == 0 &&
        (bin::isPointerShaped(dw.type(t).kind) || dw.type(r).tag == bin::DwarfTag::Pointer)) {
      return t;
    }
    t = stepInto(dw, t, offset);
  }
  return kNoType;
}

// Whether a value of type t holds one of type `name` at `offset` (itself,
// or a field or element there, however deep).
bool holdsAt(const DebugInfo& dw, TypeId t, uint64_t offset, std::string_view name) {
  for (int depth = 0; depth < 32 && t != kNoType; depth++) {
    const TypeId r = dw.resolve(t);
    if (offset == 0 && (dw.type(t).name == name || (r != kNoType && dw.type(r).name == name))) {
      return true;
    }
    t = stepInto(dw, t, offset);
  }
  return false;
}

bool sameType(const DebugInfo& dw, TypeId a, TypeId b) {
  return a != kNoType && b != kNoType &&
         (dw.resolve(a) == dw.resolve(b) || dw.type(a).name == dw.type(b).name);
}

class GlobalStoresAgainstDwarf : public ::testing::TestWithParam<std::string> {};

TEST_P(GlobalStoresAgainstDwarf, EverySightingDwarfCanCheckAgrees) {
  const std::string path = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  if (!fs::exists(path)) GTEST_SKIP() << path << " was not built";
  auto exe = bin::Binary::open(path);
  ASSERT_TRUE(exe.ok()) << exe.error().message();
  const DebugInfo* dw = exe->debugInfo();
  ASSERT_NE(dw, nullptr) << exe->debugInfoProblem();
  const auto& layout = exe->moduleLayout();
  ASSERT_TRUE(layout.has_value());
  // Every word of data and bss.
  std::vector<uint64_t> words;
  for (uint64_t a = layout->data; a < layout->ebss; a += 8) words.push_back(a);
  bin::GlobalStoreCounts counts;
  const std::vector<bin::GlobalStore> seen = bin::findGlobalStores(*exe, words, &counts);

  size_t agree = 0, unchecked = 0;
  std::ostringstream wrong;
  size_t disagree = 0;
  for (const bin::GlobalStore& g : seen) {
    const bin::GlobalVariable* var = dw->globalAt(g.global);
    if (g.what == bin::StoredValue::Receiver) {
      // The global holds a value of the receiver's type there.
      if (var != nullptr && holdsAt(*dw, var->type, g.global - var->address, g.type_name)) {
        agree++;
      } else {
        disagree++;
        wrong << "  " << (var != nullptr ? var->name : "?") << ": receiver " << g.type_name << "\n";
      }
      continue;
    }
    const TypeId leaf = var == nullptr ? kNoType : leafAt(*dw, var->type, g.global - var->address);
    const TypeId stored = dw->typeByRuntimeAddress(g.type - layout->types);
    if (leaf == kNoType || stored == kNoType || dw->type(leaf).kind == GoKind::UnsafePointer ||
        dw->type(leaf).name == "unsafe.Pointer") {
      unchecked++;  // an interface's data word, or a type DWARF does not have
      continue;
    }
    bool ok = false;
    if (g.what == bin::StoredValue::Value) {
      ok = sameType(*dw, leaf, stored);
    } else {
      // *T, or the data pointer (a *T) of a []T; a slice literal's is a
      // new [n]T.
      const TypeId r = dw->resolve(leaf);
      const TypeId array = dw->resolve(stored);
      const TypeId elem = array != kNoType && dw->type(array).tag == bin::DwarfTag::Array
                              ? dw->type(array).elem
                              : kNoType;
      ok = r != kNoType && dw->type(r).tag == bin::DwarfTag::Pointer &&
           (sameType(*dw, dw->type(r).elem, stored) ||
            (g.what == bin::StoredValue::NewObject && sameType(*dw, dw->type(r).elem, elem)));
    }
    if (ok) {
      agree++;
    } else {
      disagree++;
      wrong << "  " << (var != nullptr ? var->name : "?") << "+" << g.global - var->address << ": "
            << dw->type(leaf).name << ", seen "
            << (g.what == bin::StoredValue::NewObject  ? "new "
                : g.what == bin::StoredValue::NewArray ? "array of "
                                                       : "")
            << dw->type(stored).name << "\n";
    }
  }
  std::cerr << GetParam() << ": " << seen.size() << " sightings, " << agree << " agree, "
            << disagree << " disagree, " << unchecked << " unchecked; " << counts.functions
            << " functions, " << counts.instructions << " instructions decoded\n";
  EXPECT_EQ(disagree, 0u) << wrong.str();
  EXPECT_GE(agree, 10u);
}

INSTANTIATE_TEST_SUITE_P(Programs, GlobalStoresAgainstDwarf,
                         ::testing::ValuesIn(amd64Executables()), testing::pathParamName);

// The runtime's globals a stripped core's memstats and memory profile
// need, found in the code, against the symbol table: runtime.gcController,
// the receiver the runtime passes to its (*gcControllerState) methods, and
// runtime.mbuckets, the one global the profiling functions all name.
TEST_P(GlobalStoresAgainstDwarf, RuntimeGlobalsFoundInTheCodeAreTheSymbols) {
  const std::string path = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  if (!fs::exists(path)) GTEST_SKIP() << path << " was not built";
  auto exe = bin::Binary::open(path);
  ASSERT_TRUE(exe.ok()) << exe.error().message();
  constexpr std::string_view kProfilers[] = {"runtime.iterate_memprof", "runtime.mProf_FlushLocked",
                                             "runtime.stkbucket"};
  const std::pair<const char*, std::optional<uint64_t>> found[] = {
      {"runtime.gcController", bin::findReceiverGlobal(*exe, "runtime.(*gcControllerState).")},
      {"runtime.mbuckets", bin::findGlobalNamedByAll(*exe, kProfilers)}};
  for (const auto& [name, address] : found) {
    const bin::Symbol* sym = exe->container().symbol(name);
    ASSERT_NE(sym, nullptr) << name;
    ASSERT_TRUE(address.has_value()) << name;
    EXPECT_EQ(*address, sym->value) << name;
  }
}

// Other architectures' code is not decoded: no sightings, no error.
TEST(GlobalStores, OtherArchitecturesGiveNone) {
  const std::string path = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24/cross/zoo-s390x";
  if (!fs::exists(path)) GTEST_SKIP() << path << " was not built";
  auto exe = bin::Binary::open(path);
  ASSERT_TRUE(exe.ok()) << exe.error().message();
  ASSERT_TRUE(exe->moduleLayout().has_value());
  std::vector<uint64_t> words;
  for (uint64_t a = exe->moduleLayout()->data; a < exe->moduleLayout()->ebss; a += 8) {
    words.push_back(a);
  }
  EXPECT_TRUE(bin::findGlobalStores(*exe, words).empty());
}

}  // namespace
}  // namespace goheap
