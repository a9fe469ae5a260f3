// goheap's DWARF reader against Go's own debug/dwarf (tests/programs/
// dwarforacle, run by make-dumps.sh over the executables it builds): the
// same type DIEs with the same names, sizes, Go attributes, fields and
// references; the same globals in the same order; the same functions with
// the same parameters and locals and, where the location is one fixed CFA
// offset, the same offset (the oracle computes it from the raw location
// bytes). Also: files without DWARF, and corrupt DWARF, give an Error.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "bin/dwarf_sections.h"
#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using bin::DebugInfo;
using bin::kNoType;
using bin::TypeId;
using testing::JsonValue;

struct DwarfCase {
  std::string name;
  std::string exe;
};

void PrintTo(const DwarfCase& c, std::ostream* os) {
  *os << c.exe;
}

std::vector<DwarfCase> withDwarf() {
  std::vector<DwarfCase> cases;
  const std::string root = GOHEAP_TESTDUMPS_DIR;
  for (const testing::ProgramBuild& b : testing::programBuilds("retention")) {
    cases.push_back({b.name, b.exe});
  }
  // The typing program of every release, Go 1.25 included: DWARF 5 (Go
  // 1.25+: .debug_addr, addrx, .debug_loclists, .debug_rnglists).
  for (const testing::ProgramBuild& b :
       testing::programBuilds("zoo", testing::everyGoVersion(), false)) {
    cases.push_back({b.name + "_zoo", b.exe});
  }
  for (const std::string name : {"retention-pie", "retention-windows.exe", "retention-darwin"}) {
    cases.push_back(
        {testing::testName("go1_19_" + name.substr(10)), root + "/go1.19/cross/" + name});
  }
  return cases;
}

std::string tagName(bin::DwarfTag t) {
  switch (t) {
    case bin::DwarfTag::Base:
      return "base";
    case bin::DwarfTag::Pointer:
      return "pointer";
    case bin::DwarfTag::Struct:
      return "struct";
    case bin::DwarfTag::Array:
      return "array";
    case bin::DwarfTag::Typedef:
      return "typedef";
    case bin::DwarfTag::Subroutine:
      return "subroutine";
    case bin::DwarfTag::Unspecified:
      return "unspecified";
  }
  return "?";
}

// The DIE offset of a type, -1 for none, as the oracle writes references.
int64_t offsetOf(const DebugInfo& d, TypeId t) {
  return t == kNoType ? -1 : static_cast<int64_t>(d.type(t).offset);
}

int64_t number(const JsonValue& v) {
  return static_cast<int64_t>(v.number());
}

class DwarfAgainstOracle : public ::testing::TestWithParam<DwarfCase> {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(GetParam().exe + ".dwarf.json")) {
      GTEST_SKIP() << GetParam().exe << ".dwarf.json is missing (make-dumps.sh writes it when "
                   << "that Go toolchain is installed)";
    }
    auto b = bin::Binary::open(GetParam().exe);
    ASSERT_TRUE(b.ok()) << b.error().message();
    binary_ = std::make_unique<bin::Binary>(b.take());
    auto d = DebugInfo::read(binary_->container());
    ASSERT_TRUE(d.ok()) << d.error().message();
    info_ = std::make_unique<DebugInfo>(d.take());
    oracle_ = JsonValue::parseFile(GetParam().exe + ".dwarf.json");
    ASSERT_FALSE(oracle_.has("dwarf_error")) << oracle_["dwarf_error"].str();
    for (TypeId t = 0; t < info_->types().size(); ++t) by_offset_[info_->type(t).offset] = t;
  }

  std::unique_ptr<bin::Binary> binary_;
  std::unique_ptr<DebugInfo> info_;
  JsonValue oracle_;
  std::unordered_map<uint64_t, TypeId> by_offset_;
};

TEST_P(DwarfAgainstOracle, TypesEqualDebugDwarf) {
  const DebugInfo& d = *info_;
  ASSERT_EQ(d.types().size(), oracle_["type_count"].u64());
  ASSERT_GT(oracle_["types"].size(), 100u);
  for (const JsonValue& want : oracle_["types"].items()) {
    const std::string where = want["name"].str() + " @" + std::to_string(want["offset"].u64());
    auto it = by_offset_.find(want["offset"].u64());
    ASSERT_NE(it, by_offset_.end()) << where;
    const bin::Type& t = d.type(it->second);
    EXPECT_EQ(t.name, want["name"].str()) << where;
    EXPECT_EQ(tagName(t.tag), want["tag"].str()) << where;
    EXPECT_EQ(t.size, want["size"].u64()) << where;
    EXPECT_EQ(static_cast<int64_t>(t.kind), number(want["kind"])) << where;
    EXPECT_EQ(offsetOf(d, t.target), number(want["target"])) << where;
    EXPECT_EQ(offsetOf(d, t.elem), number(want["elem"])) << where;
    EXPECT_EQ(offsetOf(d, t.key), number(want["key"])) << where;
    EXPECT_EQ(t.count, want["count"].u64()) << where;
    EXPECT_EQ(t.runtime_type, want["runtime_type"].hexAddress()) << where;
    const auto fields = d.fields(t);
    ASSERT_EQ(fields.size(), want["fields"].size()) << where;
    for (size_t i = 0; i < fields.size(); ++i) {
      const JsonValue& f = want["fields"][i];
      EXPECT_EQ(fields[i].name, f["name"].str()) << where;
      EXPECT_EQ(fields[i].offset, f["offset"].u64()) << where << "." << f["name"].str();
      EXPECT_EQ(offsetOf(d, fields[i].type), number(f["type"])) << where << "." << f["name"].str();
      EXPECT_EQ(fields[i].embedded, f["embedded"].boolean()) << where << "." << f["name"].str();
    }
    // By name: the first type of that name, which has it.
    const TypeId named = d.typeByName(t.name);
    ASSERT_NE(named, kNoType) << where;
    EXPECT_EQ(d.type(named).name, t.name);
    EXPECT_LE(named, it->second);
    if (t.runtime_type != 0) {
      const TypeId rt = d.typeByRuntimeAddress(t.runtime_type);
      ASSERT_NE(rt, kNoType) << where;
      EXPECT_EQ(d.type(rt).runtime_type, t.runtime_type);
    }
    if (t.tag != bin::DwarfTag::Typedef) {
      EXPECT_EQ(d.resolve(it->second), it->second);
    }
  }
}

TEST_P(DwarfAgainstOracle, GlobalsEqualDebugDwarf) {
  const DebugInfo& d = *info_;
  const auto& want = oracle_["globals"].items();
  ASSERT_EQ(d.globals().size(), want.size());
  ASSERT_GT(want.size(), 50u);
  size_t found = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bin::GlobalVariable& g = d.globals()[i];
    ASSERT_EQ(g.name, want[i]["name"].str()) << i;
    EXPECT_EQ(g.address, want[i]["address"].hexAddress()) << g.name;
    EXPECT_EQ(offsetOf(d, g.type), number(want[i]["type"])) << g.name;
    const uint64_t size = g.type == kNoType ? 0 : d.type(g.type).size;
    if (size == 0) continue;
    const bin::GlobalVariable* first = d.globalAt(g.address);
    const bin::GlobalVariable* last = d.globalAt(g.address + size - 1);
    ASSERT_NE(first, nullptr) << g.name;
    EXPECT_EQ(first->name, g.name);
    ASSERT_NE(last, nullptr) << g.name;
    EXPECT_EQ(last->name, g.name);
    ++found;
  }
  EXPECT_GT(found, 50u);
  // The retention program's tree root is a global of package main.
  bool main_global = false;
  for (const auto& g : d.globals()) main_global |= g.name.starts_with("main.");
  EXPECT_TRUE(main_global);
}

TEST_P(DwarfAgainstOracle, FunctionsAndFrameVariablesEqualDebugDwarf) {
  const DebugInfo& d = *info_;
  ASSERT_EQ(d.functions().size(), oracle_["function_count"].u64());
  for (size_t i = 1; i < d.functions().size(); ++i) {
    ASSERT_LE(d.functions()[i - 1].low_pc, d.functions()[i].low_pc);
  }
  size_t main_functions = 0, with_offset = 0;
  for (const JsonValue& want : oracle_["functions"].items()) {
    const std::string name = want["name"].str();
    const bin::Function* f = d.functionAt(want["low_pc"].hexAddress());
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->name, name);
    EXPECT_EQ(f->low_pc, want["low_pc"].hexAddress()) << name;
    EXPECT_EQ(f->high_pc, want["high_pc"].hexAddress()) << name;
    if (f->high_pc > f->low_pc) {
      EXPECT_EQ(d.functionAt(f->high_pc - 1), f) << name;
    }
    main_functions += name.starts_with("main.");
    const auto vars = d.variables(*f);
    ASSERT_EQ(vars.size(), want["vars"].size()) << name;
    for (size_t i = 0; i < vars.size(); ++i) {
      const JsonValue& v = want["vars"][i];
      const std::string where = name + " " + v["name"].str();
      EXPECT_EQ(vars[i].name, v["name"].str()) << name << " variable " << i;
      EXPECT_EQ(offsetOf(d, vars[i].type), number(v["type"])) << where;
      EXPECT_EQ(vars[i].parameter, v["param"].boolean()) << where;
      EXPECT_EQ(vars[i].inlined, v["inlined"].boolean()) << where;
      if (v["cfa_offset"].isNull()) {
        EXPECT_FALSE(vars[i].cfa_offset.has_value()) << where << " " << *vars[i].cfa_offset;
      } else {
        ASSERT_TRUE(vars[i].cfa_offset.has_value()) << where;
        EXPECT_EQ(*vars[i].cfa_offset, number(v["cfa_offset"])) << where;
        ++with_offset;
      }
    }
  }
  EXPECT_GT(main_functions, 10u);
  EXPECT_GT(with_offset, 0u);
}

INSTANTIATE_TEST_SUITE_P(Built, DwarfAgainstOracle, ::testing::ValuesIn(withDwarf()),
                         [](const auto& param_info) { return param_info.param.name; });

// The fuzzer's seed (fuzz/corpus/bin_reader/dwarf-plain-seed, laid out as
// bin_reader_fuzz.cpp's dwarfContainer says): one hand-written DWARF 4 unit
// with a base type, a struct with an embedded field, a pointer (without
// a size) with a runtime type, an array, a global and a function whose local is at
// DW_OP_fbreg -32 and whose parameter's location list says CFA-16.
TEST(DebugInfo, HandWrittenUnit) {
  std::ifstream in(std::string(GOHEAP_SOURCE_DIR) + "/fuzz/corpus/bin_reader/dwarf-plain-seed",
                   std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                   std::istreambuf_iterator<char>()};
  ASSERT_GT(bytes.size(), 7u);
  bin::Container c;
  c.file = bin::ByteView(bytes, false);
  uint64_t at = 7;
  const char* names[] = {".debug_abbrev", ".debug_str", ".debug_loc"};
  for (int i = 0; i < 3; ++i) {
    const uint64_t n = static_cast<uint64_t>(bytes[1 + 2 * i]) << 8 | bytes[2 + 2 * i];
    c.sections.push_back({names[i], 0, at, n, true, false});
    at += n;
  }
  c.sections.push_back({".debug_info", 0, at, bytes.size() - at, true, false});
  auto d = DebugInfo::read(c);
  ASSERT_TRUE(d.ok()) << d.error().message();
  ASSERT_EQ(d->types().size(), 4u);
  const TypeId t = d->typeByName("main.T");
  ASSERT_NE(t, kNoType);
  EXPECT_EQ(d->type(t).kind, bin::GoKind::Struct);
  EXPECT_EQ(d->type(t).size, 16u);
  const auto fields = d->fields(d->type(t));
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[1].name, "b");
  EXPECT_EQ(fields[1].offset, 8u);
  EXPECT_TRUE(fields[1].embedded);
  EXPECT_EQ(d->type(fields[1].type).name, "int");
  const TypeId p = d->typeByName("*main.T");
  EXPECT_EQ(d->type(p).elem, t);
  EXPECT_EQ(d->typeByRuntimeAddress(0x4a0000), p);
  EXPECT_EQ(d->type(d->typeByName("[4]int")).count, 4u);
  ASSERT_EQ(d->globals().size(), 1u);
  // Its pointer type has no DW_AT_byte_size: a zero-sized global holds only
  // its own address.
  ASSERT_NE(d->globalAt(0x500000), nullptr);
  EXPECT_EQ(d->globalAt(0x500000)->name, "main.g");
  EXPECT_EQ(d->globalAt(0x500001), nullptr);
  const bin::Function* f = d->functionAt(0x401080);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "main.f");
  const auto vars = d->variables(*f);
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0].name, "x");
  EXPECT_EQ(vars[0].cfa_offset, -32);
  EXPECT_FALSE(vars[0].parameter);
  EXPECT_EQ(vars[1].name, "p");
  EXPECT_EQ(vars[1].cfa_offset, -16);
  EXPECT_TRUE(vars[1].parameter);
}

// Files without DWARF say so.
TEST(DebugInfo, StrippedExecutablesHaveNoDwarf) {
  const std::string root = GOHEAP_TESTDUMPS_DIR;
  std::vector<std::string> stripped{root + "/go1.19/cross/retention-stripped"};
  for (const std::string& v : testing::goVersions())
    stripped.push_back(root + "/" + v + "/stripped/funcs");
  for (const std::string& exe : stripped) {
    auto b = bin::Binary::open(exe);
    ASSERT_TRUE(b.ok()) << b.error().message();
    auto d = DebugInfo::read(b->container());
    ASSERT_FALSE(d.ok()) << exe;
    EXPECT_NE(d.error().message().find("no DWARF"), std::string::npos) << d.error().message();
    // The oracle agrees there is none.
    const JsonValue oracle = JsonValue::parseFile(exe + ".dwarf.json");
    EXPECT_TRUE(oracle.has("dwarf_error")) << exe;
  }
}

TEST(DebugInfo, SharedGobinExecutablesHaveNoDwarf) {
  const std::string dir = GOHEAP_GOBIN_DIR;
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << dir << " absent";
  size_t checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    auto b = bin::Binary::open(e.path().string());
    if (!b.ok()) continue;  // not an executable goheap reads
    auto d = DebugInfo::read(b->container());
    ASSERT_FALSE(d.ok()) << e.path();
    EXPECT_NE(d.error().message().find("no DWARF"), std::string::npos) << d.error().message();
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

// A container whose DWARF sections are the real ones, decompressed and laid
// out plainly in a buffer, so that tests can cut and corrupt the DWARF itself
// (not a zlib stream).
struct PlainDwarf {
  std::vector<uint8_t> bytes;
  bin::Container container;

  static PlainDwarf from(const bin::Container& real) {
    auto s = bin::DwarfSections::load(real);
    EXPECT_TRUE(s.ok());
    PlainDwarf p;
    // .debug_info last (info()); DWARF 5 (Go 1.25+) also needs the address,
    // string offset, line string and location list tables.
    const std::pair<const char*, bin::ByteView> parts[] = {
        {".debug_abbrev", s->abbrev},           {".debug_str", s->str},
        {".debug_line_str", s->line_str},       {".debug_addr", s->addr},
        {".debug_str_offsets", s->str_offsets}, {".debug_loc", s->loc},
        {".debug_loclists", s->loclists},       {".debug_info", s->info}};
    struct Placed {
      const char* name;
      uint64_t offset, size;
    };
    std::vector<Placed> placed;
    for (const auto& [name, view] : parts) {
      placed.push_back({name, p.bytes.size(), view.size()});
      p.bytes.insert(p.bytes.end(), view.bytes().begin(), view.bytes().end());
    }
    p.container.ptr_size = real.ptr_size;
    p.container.big_endian = real.big_endian;
    for (const Placed& pl : placed) {
      bin::Section sec;
      sec.name = pl.name;
      sec.offset = pl.offset;
      sec.size = pl.size;
      p.container.sections.push_back(sec);
    }
    p.rebind();
    return p;
  }
  void rebind() { container.file = bin::ByteView(bytes, container.big_endian); }
  bin::Section& info() { return container.sections.back(); }
};

class CorruptDwarf : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto b = bin::Binary::open(std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/retention");
    ASSERT_TRUE(b.ok()) << b.error().message();
    binary_ = std::make_unique<bin::Binary>(b.take());
  }
  std::unique_ptr<bin::Binary> binary_;
};

TEST_P(CorruptDwarf, PlainSectionsReadLikeCompressedOnes) {
  auto want = DebugInfo::read(binary_->container());
  ASSERT_TRUE(want.ok());
  PlainDwarf p = PlainDwarf::from(binary_->container());
  auto got = DebugInfo::read(p.container);
  ASSERT_TRUE(got.ok()) << got.error().message();
  EXPECT_EQ(got->types().size(), want->types().size());
  EXPECT_EQ(got->globals().size(), want->globals().size());
  EXPECT_EQ(got->functions().size(), want->functions().size());
}

TEST_P(CorruptDwarf, TruncatedInfoIsAnErrorWithAnOffset) {
  PlainDwarf p = PlainDwarf::from(binary_->container());
  const uint64_t full = p.info().size;
  size_t errors = 0;
  for (uint64_t cut = 1; cut < full; cut += full / 97 + 1) {
    p.info().size = cut;
    auto d = DebugInfo::read(p.container);
    if (d.ok()) continue;  // a cut at a unit boundary leaves whole units
    EXPECT_NE(d.error().message().find("at byte offset"), std::string::npos) << d.error().message();
    ++errors;
  }
  EXPECT_GT(errors, 90u);
}

TEST_P(CorruptDwarf, GarbledBytesAreHandled) {
  PlainDwarf p = PlainDwarf::from(binary_->container());
  const bin::Section info = p.info();
  const std::vector<uint8_t> clean = p.bytes;
  size_t errors = 0;
  // Overwrite runs of bytes all through .debug_info (and the abbreviations)
  // with values that break lengths, codes and forms; no crash, and every
  // failure says where.
  for (uint64_t at = 0; at < info.size; at += info.size / 200 + 1) {
    for (const int fill : {0xff, 0x00, 0x80}) {
      p.bytes = clean;
      std::memset(p.bytes.data() + info.offset + at, fill, std::min<uint64_t>(9, info.size - at));
      p.rebind();
      auto d = DebugInfo::read(p.container);
      if (d.ok()) continue;
      EXPECT_NE(d.error().message().find("at byte offset"), std::string::npos)
          << d.error().message();
      ++errors;
    }
  }
  for (uint64_t at = 0; at < p.container.sections[0].size; ++at) {
    p.bytes = clean;
    p.bytes[at] = 0xff;
    p.rebind();
    (void)DebugInfo::read(p.container);
  }
  EXPECT_GT(errors, 0u);
}

// The real, compressed sections: a corrupt stream or a size the stream
// cannot have is an Error, not a crash or a huge allocation.
TEST_P(CorruptDwarf, CorruptCompressedSectionIsAnError) {
  const bin::Container& real = binary_->container();
  const bin::Section* info = real.section(".debug_info");
  ASSERT_NE(info, nullptr);
  ASSERT_TRUE(info->compressed);
  std::vector<uint8_t> bytes(real.file.bytes().begin(), real.file.bytes().end());
  auto reread = [&](const char* what) {
    auto c = bin::readContainer(bytes);
    ASSERT_TRUE(c.ok());
    auto d = DebugInfo::read(*c);
    ASSERT_FALSE(d.ok()) << what;
    EXPECT_NE(d.error().message().find("at byte offset"), std::string::npos) << d.error().message();
    EXPECT_NE(d.error().message().find(".debug_info"), std::string::npos) << d.error().message();
  };
  const std::vector<uint8_t> clean = bytes;
  // ch_size (Elf64_Chdr: type, reserved, size) far beyond what zlib can give.
  bytes[info->offset + 8 + 5] = 0x7f;
  reread("huge size");
  bytes = clean;
  bytes[info->offset + 8] ^= 0x01;  // off by one: the stream inflates to more or less
  reread("wrong size");
  bytes = clean;
  std::memset(bytes.data() + info->offset + 24 + info->size / 2, 0x55, 64);
  reread("garbled stream");
  bytes = clean;
  bytes[info->offset] = 2;  // ch_type 2 (zstd) is not read
  reread("zstd");
}

INSTANTIATE_TEST_SUITE_P(Retention, CorruptDwarf, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

TEST(DwarfSections, InflatedSizeIsBounded) {
  EXPECT_EQ(bin::maxInflatedSize(0), 64u);
  EXPECT_EQ(bin::maxInflatedSize(1000), 1032064u);
  EXPECT_EQ(bin::maxInflatedSize(uint64_t{1} << 40), uint64_t{4} << 30);
}

}  // namespace
}  // namespace goheap
