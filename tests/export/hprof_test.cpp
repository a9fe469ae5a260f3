// goheap convert --to hprof, read back by VisualVM's own heap library
// (tests/export/java/HprofCheck.java against the jar from Debian's visualvm
// package): every object is an instance, instances have goheap's sizes,
// arrays goheap's size plus the Java array header VisualVM adds, and every
// retained size is what goheap's dominator tree gives with those sizes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "support/go_versions.h"
#include "support/json_value.h"
#include "support/param_names.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;
using testing::JsonValue;

const char* const kJar =
    "/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar";

int sh(const std::string& command) {
  return std::system(command.c_str());
}

class HprofExport : public ::testing::TestWithParam<std::string> {};

TEST_P(HprofExport, VisualVmSeesGoheapsObjectsSizesAndRetainedSizes) {
  const bool have_tools =
      sh("command -v javac >/dev/null && command -v java >/dev/null") == 0 && fs::exists(kJar);
  if (!have_tools) {
    GTEST_SKIP() << "needs default-jdk-headless and visualvm (scripts/install-deps.sh)";
  }
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  if (!fs::exists(dir + "/zoo.dump")) GTEST_SKIP() << "no test dumps";
  // A directory of our own: VisualVM leaves a cache beside the file it reads.
  std::string tmp = (fs::temp_directory_path() / "goheap-hprof-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmp.data()), nullptr);
  const std::string bin = GOHEAP_BINARY;
  ASSERT_EQ(sh("javac -cp " + std::string(kJar) + " -d " + tmp + " " + GOHEAP_SOURCE_DIR +
               "/tests/export/java/HprofCheck.java"),
            0);
  ASSERT_EQ(
      sh(bin + " convert " + dir + "/zoo.dump " + dir + "/zoo --to hprof -o " + tmp + "/zoo.hprof"),
      0);
  ASSERT_EQ(
      sh(bin + " convert " + dir + "/zoo.dump " + dir + "/zoo --to jsonl -o " + tmp + "/zoo.jsonl"),
      0);
  ASSERT_EQ(sh("java -cp " + tmp + ":" + kJar + " HprofCheck " + tmp + "/zoo.hprof all > " + tmp +
               "/check.json"),
            0);
  const JsonValue check = JsonValue::parseFile(tmp + "/check.json");

  // goheap's objects: size, reachability and immediate dominator.
  struct Obj {
    uint64_t size = 0, retained = 0, node = 0;
    bool reachable = false;
    int64_t idom = -1;
    std::string java_name;  // goheap's name as Java shows it
  };
  std::map<uint64_t, Obj> objects;       // by address
  std::map<uint64_t, uint64_t> by_node;  // node id -> address
  std::ifstream jsonl(tmp + "/zoo.jsonl");
  for (std::string line; std::getline(jsonl, line);) {
    const JsonValue v = JsonValue::parse(line);
    if (v["kind"].str() != "object") continue;
    Obj o;
    o.size = v["size"].u64();
    o.retained = v["retained"].u64();
    o.node = v["id"].u64();
    o.reachable = v["reachable"].boolean();
    if (!v["idom"].isNull()) o.idom = static_cast<int64_t>(v["idom"].u64());
    // Java shows "[4]main.T" as "main.T[4]" and '/' as '.'.
    std::string name = v["name"].str();
    while (!name.empty() && name[0] == '[' && name.find(']') != std::string::npos) {
      const size_t close = name.find(']');
      name = name.substr(close + 1) + name.substr(0, close + 1);
    }
    for (char& c : name) {
      if (c == '/') c = '.';
    }
    o.java_name = name;
    objects[v["address"].hexAddress()] = o;
    by_node[o.node] = v["address"].hexAddress();
  }
  ASSERT_EQ(check["instances"].u64(), objects.size());

  // The class histogram: every object that is an instance (not a Java
  // array, as string bytes and arrays of numbers and pointers are) is of the
  // class named as goheap names it.
  size_t named = 0;
  for (const JsonValue& row : check["all"].items()) {
    const std::string cls = row[3].str();
    if (cls.ends_with("[]")) continue;
    named++;
    EXPECT_EQ(cls, objects[row[0].u64()].java_name) << "object " << row[0].u64();
  }
  EXPECT_GT(named, objects.size() / 2);

  std::map<uint64_t, uint64_t> vsize;
  size_t arrays = 0;
  for (const JsonValue& row : check["all"].items()) {
    const uint64_t id = row[0].u64(), size = row[1].u64();
    ASSERT_TRUE(objects.count(id)) << "unknown id " << id;
    const uint64_t go = objects[id].size;
    // Instances: the Go size. Arrays: Java's array header on top (24 bytes,
    // 16 when a malloc header word is left out of the elements).
    EXPECT_TRUE(size == go || size == go + 24 || size == go + 16) << id << " " << size << " " << go;
    if (size != go) arrays++;
    vsize[id] = size;
  }
  EXPECT_GT(arrays, 0u);
  // Retained sizes from goheap's dominator tree, with VisualVM's sizes.
  std::map<uint64_t, uint64_t> expected;
  for (const auto& [addr, o] : objects) {
    if (!o.reachable) continue;
    for (int64_t n = static_cast<int64_t>(o.node); n >= 0 && by_node.count(n);) {
      const uint64_t a = by_node[static_cast<uint64_t>(n)];
      expected[a] += vsize[addr];
      n = objects[a].idom;
    }
  }
  size_t differ = 0;
  for (const JsonValue& row : check["all"].items()) {
    if (row[2].u64() != expected[row[0].u64()]) {
      differ++;
    }
  }
  // Known: an object with a finalizer and its holder (see
  // docs/export-formats.md): VisualVM counts the finalizer's referents, which
  // goheap roots, in the finalizable object's retained size.
  EXPECT_LE(differ, 2u);
  fs::remove_all(tmp);
}

INSTANTIATE_TEST_SUITE_P(Zoo, HprofExport, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
