// The allocations the code scanner finds (bin/global_stores.h:
// findAllocationCalls), against Go's own disassembler: make-dumps.sh saves
// `go tool objdump` of package main of the zoo, leaks and goleak programs
// (EXE.objdump.txt). There an allocation is a CALL of runtime.newobject,
// makeslice, growslice, makemap, makechan or Go 1.27's size-specialized
// mallocs, and where the last instruction before it that sets the register
// the allocator takes its type in is `LEAQ disp(IP), REG`, its type is the
// address that names. Every such call the scanner reports must name that
// address, and it must report nearly all of them.
#include "bin/global_stores.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "bin/binary.h"
#include "support/go_versions.h"
#include "support/param_names.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;

// The register an allocator takes its type in (Go's ABIInternal), or "".
std::string typeRegister(const std::string& callee, int go_minor) {
  if (callee == "runtime.newobject" || callee.starts_with("runtime.makeslice") ||
      callee.starts_with("runtime.makemap") || callee.starts_with("runtime.makechan")) {
    return callee == "runtime.makemap_small" ? "" : "AX";
  }
  if (callee == "runtime.growslice") return go_minor >= 20 ? "SI" : "AX";
  if (callee.starts_with("runtime.mallocgcSmallScanNoHeaderSC") ||
      callee.starts_with("runtime.mallocgcSmallNoScanSC") ||
      callee.starts_with("runtime.mallocgcTiny")) {
    return "BX";
  }
  return "";
}

struct ObjdumpCall {
  uint64_t type = 0;  // 0: the disassembly does not say
  std::string callee;
};

// Return address -> what objdump says the allocation there is, by function.
std::map<std::string, std::map<uint64_t, ObjdumpCall>> readObjdump(const std::string& path,
                                                                   int go_minor) {
  std::map<std::string, std::map<uint64_t, ObjdumpCall>> out;
  std::ifstream in(path);
  // "  main.go:147\t0x4b8446\t\t488d0593df0000\t\tLEAQ 0xdf93(IP), AX"
  const std::regex insn(R"(^\s+\S+\s+0x([0-9a-f]+)\s+([0-9a-f]+)\s+(.*?)\s*$)");
  const std::regex lea(R"(^LEAQ (-?0x[0-9a-f]+|-?[0-9]+)\(IP\), ([A-Z0-9]+)$)");
  const std::regex call(R"(^CALL ([^(]+)\(SB\)$)");
  std::string function;
  std::map<std::string, uint64_t> set_by_lea;  // register -> type address, while valid
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("TEXT ")) {
      function = line.substr(5, line.find('(') - 5);
      set_by_lea.clear();
      continue;
    }
    std::smatch m;
    if (!std::regex_match(line, m, insn)) continue;
    const uint64_t pc = std::stoull(m[1].str(), nullptr, 16);
    const uint64_t next = pc + m[2].str().size() / 2;
    const std::string text = m[3].str();
    std::smatch l;
    if (std::regex_match(text, l, lea)) {
      const int64_t disp = std::stoll(l[1].str(), nullptr, 0);
      set_by_lea[l[2].str()] = next + static_cast<uint64_t>(disp);
      continue;
    }
    std::smatch c;
    if (std::regex_match(text, c, call)) {
      const std::string callee = c[1].str();
      const std::string reg = typeRegister(callee, go_minor);
      if (!reg.empty()) {
        auto it = set_by_lea.find(reg);
        out[function][next] = {it == set_by_lea.end() ? 0 : it->second, callee};
      }
      set_by_lea.clear();  // a call keeps no register
      continue;
    }
    // Any other instruction naming a register as its destination (Go's
    // syntax puts it last) ends what a LEAQ set there.
    const size_t comma = text.rfind(", ");
    if (comma != std::string::npos) set_by_lea.erase(text.substr(comma + 2));
  }
  return out;
}

class AllocationCalls : public ::testing::TestWithParam<std::string> {};

TEST_P(AllocationCalls, AgreeWithGoObjdump) {
  const std::string exe_path = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  const std::string oracle = exe_path + ".objdump.txt";
  ASSERT_TRUE(fs::exists(oracle)) << oracle << ": make-dumps.sh writes it";
  Expected<bin::Binary> exe = bin::Binary::open(exe_path);
  ASSERT_TRUE(exe.ok()) << exe.error().message();
  const int go_minor = std::stoi(GetParam().substr(4, 2));
  const auto expected = readObjdump(oracle, go_minor);
  ASSERT_FALSE(expected.empty());
  uint64_t known = 0, found = 0, reported = 0;
  for (const auto& [function, calls] : expected) {
    const bin::Func* f = nullptr;
    for (const bin::Func& fn : exe->pclntab().funcs()) {
      if (fn.name == function) f = &fn;
    }
    ASSERT_NE(f, nullptr) << function;
    const std::vector<bin::AllocationCall> mine = bin::findAllocationCalls(*exe, *f);
    for (const bin::AllocationCall& c : mine) {
      if (c.what == bin::Allocated::StringBytes) continue;
      reported++;
      auto it = calls.find(c.return_pc);
      ASSERT_NE(it, calls.end()) << function << ": a call at " << std::hex << c.return_pc
                                 << " objdump has no allocation at";
      EXPECT_EQ(std::string(c.callee), it->second.callee);
      if (it->second.type != 0) {
        EXPECT_EQ(c.type, it->second.type)
            << function << ": the call returning to " << std::hex << c.return_pc;
      }
    }
    for (const auto& [pc, e] : calls) {
      if (e.type == 0) continue;
      known++;
      for (const bin::AllocationCall& c : mine) found += c.return_pc == pc && c.type == e.type;
    }
  }
  std::cerr << GetParam() << ": " << found << " of " << known
            << " allocations whose type objdump shows found; " << reported << " reported\n";
  EXPECT_GT(known, 10u);
  EXPECT_GE(found * 100, known * 95) << found << " of " << known;
}

INSTANTIATE_TEST_SUITE_P(Programs, AllocationCalls,
                         ::testing::ValuesIn(testing::inEachVersion(
                             {"zoo", "leaks", "goleak"}, testing::goVersionsWithReleaseTier())),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
