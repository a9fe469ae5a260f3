// --to dartheap read back by a reader written here from the Dart SDK's
// runtime/vm/service/heap_snapshot.md alone (and package:vm_service's
// reading of it: bools are a byte, identity hash codes are LEB128, NameData
// is tag 8), sharing no code with the writer, then compared with the graph.
#include <gtest/gtest.h>

#include <set>

#include "support/export_support.h"
#include "support/go_versions.h"
#include "support/param_names.h"

namespace goheap {
namespace {

struct DartField {
  uint64_t index = 0;
  std::string name;
};
struct DartClass {
  std::string name, library, uri;
  std::vector<DartField> fields;
};
struct DartObject {
  uint64_t class_id = 0, size = 0, data_tag = 0;
  std::string data;  // a string's bytes or a name
  uint64_t length = 0;
  std::vector<uint64_t> refs;
};
struct DartGraph {
  std::string name;
  uint64_t shallow = 0, capacity = 0, external = 0, reference_count = 0;
  std::vector<DartClass> classes;   // class id i is classes[i - 1]
  std::vector<DartObject> objects;  // object id i is objects[i - 1]
  std::vector<uint64_t> hashes;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : b_(bytes) {}
  bool atEnd() const { return pos_ >= b_.size(); }
  uint8_t byte() {
    if (pos_ >= b_.size()) throw std::runtime_error("truncated");
    return static_cast<uint8_t>(b_[pos_++]);
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = byte();
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return v;
    }
  }
  std::string bytes(uint64_t n) {
    if (n > b_.size() - pos_) throw std::runtime_error("truncated");
    std::string s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::string utf8() { return bytes(uleb()); }

 private:
  const std::string& b_;
  size_t pos_ = 0;
};

void readData(Reader& r, DartObject& o) {
  o.data_tag = r.uleb();
  switch (o.data_tag) {
    case 0:  // no data
    case 1:  // null
      return;
    case 2:  // bool
      o.length = r.byte();
      return;
    case 3:  // integer
      o.length = r.uleb();
      return;
    case 4:  // double
      o.data = r.bytes(8);
      return;
    case 5: {  // Latin-1 string: length, truncated length, bytes
      o.length = r.uleb();
      o.data = r.bytes(r.uleb());
      return;
    }
    case 6:
      o.length = r.uleb();
      o.data = r.bytes(2 * r.uleb());
      return;
    case 7:  // length
      o.length = r.uleb();
      return;
    case 8:  // name
      o.data = r.utf8();
      return;
    default:
      throw std::runtime_error("bad data tag " + std::to_string(o.data_tag));
  }
}

DartGraph readDartHeap(const std::string& file) {
  Reader r(file);
  if (r.bytes(8) != "dartheap") throw std::runtime_error("no magic");
  DartGraph g;
  r.uleb();  // flags
  g.name = r.utf8();
  g.shallow = r.uleb();
  g.capacity = r.uleb();
  g.external = r.uleb();
  g.classes.resize(r.uleb());
  for (DartClass& c : g.classes) {
    r.uleb();
    c.name = r.utf8();
    c.library = r.utf8();
    c.uri = r.utf8();
    r.utf8();
    c.fields.resize(r.uleb());
    for (DartField& f : c.fields) {
      r.uleb();
      f.index = r.uleb();
      f.name = r.utf8();
      r.utf8();
    }
  }
  g.reference_count = r.uleb();
  g.objects.resize(r.uleb());
  for (DartObject& o : g.objects) {
    o.class_id = r.uleb();
    o.size = r.uleb();
    readData(r, o);
    o.refs.resize(r.uleb());
    for (uint64_t& ref : o.refs) ref = r.uleb();
  }
  const uint64_t externals = r.uleb();
  for (uint64_t i = 0; i < externals; i++) {
    r.uleb();
    r.uleb();
    r.utf8();
  }
  while (!r.atEnd()) g.hashes.push_back(r.uleb());
  return g;
}

class DartHeapFile : public ::testing::TestWithParam<std::string> {};

TEST_P(DartHeapFile, ReadsBackAsTheHeapGraph) {
  const testing::TypedDump loaded =
      testing::loadTypedDump(std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam());
  if (!loaded.missing.empty()) GTEST_SKIP() << loaded.missing;
  ASSERT_TRUE(loaded.error.empty()) << loaded.error;
  const analysis::Snapshot& s = *loaded.snapshot;
  const graph::Heap& h = s.heap;
  DartGraph g;
  ASSERT_NO_THROW(g = readDartHeap(testing::readWholeFile(testing::writeFormat(s, "dartheap"))));

  ASSERT_EQ(g.objects.size(), h.nodeCount());
  ASSERT_EQ(g.hashes.size(), g.objects.size());
  for (uint64_t hash : g.hashes) EXPECT_NE(hash, 0u);
  // Object ids: the super-root is 1, then the objects in goheap's order,
  // then the other roots.
  auto nodeOf = [&](uint64_t id) -> NodeId {
    if (id == 1) return h.superRoot();
    return id - 2 < h.objectCount() ? static_cast<NodeId>(id - 2) : static_cast<NodeId>(id - 1);
  };
  uint64_t shallow = 0, refs = 0, typed_classes_with_fields = 0;
  for (const DartClass& c : g.classes) {
    if (!c.library.empty() && !c.fields.empty()) typed_classes_with_fields++;
  }
  EXPECT_GT(typed_classes_with_fields, 3u);
  for (size_t i = 0; i < g.objects.size(); i++) {
    const DartObject& o = g.objects[i];
    const NodeId n = nodeOf(i + 1);
    ASSERT_GE(o.class_id, 1u);
    ASSERT_LE(o.class_id, g.classes.size());
    EXPECT_EQ(o.size, s.shallowSize(n)) << "object " << i + 1;
    shallow += o.size;
    refs += o.refs.size();
    const DartClass& c = g.classes[o.class_id - 1];
    for (const DartField& f : c.fields) EXPECT_LT(f.index, o.refs.size()) << c.name;
    // The references, less nil slots (0) and self references, are the
    // graph's edges.
    std::set<NodeId> got;
    for (uint64_t ref : o.refs) {
      ASSERT_LE(ref, g.objects.size());
      if (ref != 0 && nodeOf(ref) != n) got.insert(nodeOf(ref));
    }
    const auto succ = h.successors.neighbors(n);
    EXPECT_EQ(got, std::set<NodeId>(succ.begin(), succ.end()))
        << "object " << i + 1 << " " << c.name;
  }
  EXPECT_EQ(g.shallow, shallow);
  EXPECT_GE(g.capacity, g.shallow);
  EXPECT_GE(g.reference_count, refs);
  // The root references the GC roots.
  EXPECT_EQ(g.objects[0].refs.size(), h.successors.neighbors(h.superRoot()).size());
}

INSTANTIATE_TEST_SUITE_P(RealDumps, DartHeapFile,
                         ::testing::ValuesIn(testing::inEachVersion({"zoo", "retention"})),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
