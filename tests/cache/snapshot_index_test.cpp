// A Snapshot written into an index file and restored from it, on real dumps
// with their executables: every column comes back equal to what
// buildSnapshot computed (the oracle: the snapshot built afresh from the
// same dump), as a view of the mapped file. Parts that do not fit the heap
// (another heap's index, a damaged id) are refused, leaving the dump for a
// build from scratch.
#include "cache/snapshot_index.h"
#include "cache/model_index.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "analysis/dominators.h"
#include "dump/reader.h"
#include "support/go_versions.h"
#include "support/goheap_process.h"
#include "support/index_samples.h"
#include "support/open_heap.h"
#include "support/param_names.h"

namespace goheap {
namespace {

using testing::testKey;

template <class T>
std::vector<T> asVector(const Column<T>& c) {
  return std::vector<T>(c.begin(), c.end());
}
template <class V, class D>
std::vector<V> asVector(const BasicPackedColumn<V, D>& c) {
  return c.values();
}
// Where a packed column's values are stored.
template <class V, class D>
const void* storageOf(const BasicPackedColumn<V, D>& c) {
  return c.packed() ? static_cast<const void*>(c.deltas().data()) : c.unpacked().data();
}

// Writes `snap`'s parts into an index file and maps it back.
std::shared_ptr<const cache::IndexFile> writeAndOpen(const analysis::Snapshot& snap,
                                                     const std::string& name) {
  cache::IndexWriter writer;
  cache::addSnapshotSections(analysis::computedPartsOf(snap), writer);
  const std::string path = testing::scratch().file(name);
  Status written = writer.write(path, testKey(7));
  EXPECT_TRUE(written.ok()) << written.error().message();
  auto index = cache::IndexFile::open(path, testKey(7));
  EXPECT_TRUE(index.ok()) << index.error().message();
  return index ? *index : nullptr;
}

class SnapshotIndex : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
    dump_ = dir + "/zoo.dump";
    exe_ = dir + "/zoo";
    other_dump_ = dir + "/leaks.dump";
  }
  // The executable bound to `model`, as query::open binds it.
  analysis::LoadOptions load(const model::HeapModel& model) const {
    analysis::LoadOptions o;
    o.executable = analysis::bindExecutable(exe_, model);
    return o;
  }
  std::string dump_, exe_, other_dump_;
};

TEST_P(SnapshotIndex, RestoresEveryColumnAsAViewOfTheFile) {
  auto built = testing::openSnapshot(dump_, exe_);
  ASSERT_TRUE(built.ok()) << built.error().message();
  const analysis::Snapshot& b = **built;
  ASSERT_TRUE(b.types) << "zoo is typed from its DWARF";
  auto index = writeAndOpen(b, "snapshot-index-" + testing::testName(GetParam()) + ".ghx");
  ASSERT_TRUE(index);

  auto parts = cache::readSnapshotSections(*index);
  ASSERT_TRUE(parts.ok()) << parts.error().message();
  auto model = dump::readDumpFile(dump_);
  ASSERT_TRUE(model.ok()) << model.error().message();
  auto restored = analysis::restoreSnapshot(*model, parts.take(), load(*model));
  ASSERT_TRUE(restored.ok()) << restored.error().message();
  const analysis::Snapshot& r = **restored;

  // The columns are read in place from the mapped entry, not copied.
  EXPECT_TRUE(r.heap.successors.targets.isView());
  EXPECT_EQ(asVector(r.heap.successors.begin), asVector(b.heap.successors.begin));
  EXPECT_EQ(asVector(r.heap.successors.targets), asVector(b.heap.successors.targets));
  EXPECT_EQ(asVector(r.heap.predecessors().targets), asVector(b.heap.predecessors().targets));
  EXPECT_EQ(asVector(r.heap.root_record), asVector(b.heap.root_record));
  EXPECT_EQ(asVector(r.heap.goroutine_node), asVector(b.heap.goroutine_node));
  EXPECT_EQ(asVector(r.heap.frame_node), asVector(b.heap.frame_node));
  EXPECT_EQ(r.heap.superRoot(), b.heap.superRoot());
  EXPECT_EQ(r.heap.non_heap_refs, b.heap.non_heap_refs);
  EXPECT_EQ(r.heap.nil_slots, b.heap.nil_slots);
  EXPECT_EQ(r.heap.conservative_stack_edges, b.heap.conservative_stack_edges);
  EXPECT_EQ(asVector(r.dom.idom), asVector(b.dom.idom));
  // Neither keeps the preorder: the children stand in for it.
  EXPECT_TRUE(r.dom.preorder.empty());
  EXPECT_TRUE(b.dom.preorder.empty());
  EXPECT_EQ(asVector(r.retained), asVector(b.retained));
  EXPECT_EQ(asVector(r.dominatorChildren().targets), asVector(b.dominatorChildren().targets));
  EXPECT_EQ(r.reachable_objects, b.reachable_objects);
  EXPECT_EQ(r.reachable_bytes, b.reachable_bytes);
  EXPECT_EQ(r.garbage_bytes, b.garbage_bytes);
  ASSERT_TRUE(r.types);
  EXPECT_EQ(asVector(r.types->assignment), asVector(b.types->assignment));
  EXPECT_EQ(asVector(r.types->assignments), asVector(b.types->assignments));
  EXPECT_EQ(r.types->typed_objects, b.types->typed_objects);
  EXPECT_EQ(r.types->conflicts, b.types->conflicts);
  // Views: the restored columns point into the mapping, not at copies.
  uint64_t idom_offset = 0;
  for (const cache::SectionInfo& section : index->sections()) {
    if (section.id == cache::kIdom) idom_offset = section.offset;
  }
  const uint8_t* lo = index->bytes(cache::kIdom)->data() - idom_offset;
  const uint8_t* hi = lo + index->fileSize();
  auto inFile = [&](const void* p) {
    return static_cast<const uint8_t*>(p) >= lo && static_cast<const uint8_t*>(p) < hi;
  };
  EXPECT_TRUE(inFile(r.heap.successors.targets.data()));
  EXPECT_TRUE(inFile(storageOf(r.retained)));
  EXPECT_TRUE(inFile(storageOf(r.types->assignment)));
  EXPECT_EQ(r.heap.successors.targets.ownedBytes(), 0u);
  // Names come from the types: the same for every object.
  ASSERT_GT(r.heap.objectCount(), 0u);
  for (NodeId o = 0; o < r.heap.objectCount(); o += 7) {
    ASSERT_EQ(r.namer().name(o), b.namer().name(o)) << o;
  }
}

TEST_P(SnapshotIndex, AnotherHeapsIndexIsRefusedAndTheDumpStillBuilds) {
  auto other = testing::openSnapshot(other_dump_);
  ASSERT_TRUE(other.ok()) << other.error().message();
  auto index = writeAndOpen(**other, "snapshot-index-other-" + testing::testName(GetParam()));
  ASSERT_TRUE(index);
  auto parts = cache::readSnapshotSections(*index);
  ASSERT_TRUE(parts.ok());
  auto model = dump::readDumpFile(dump_);
  ASSERT_TRUE(model.ok());
  const size_t objects = model->objects.count();
  auto refused = analysis::restoreSnapshot(*model, parts.take(), load(*model));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("does not fit"), std::string::npos)
      << refused.error().message();
  // The dump is handed back whole: built from it, it is the heap it was.
  ASSERT_EQ(model->objects.count(), objects);
  analysis::LoadOptions options = load(*model);
  auto rebuilt = analysis::buildSnapshot(model.take(), options);
  ASSERT_TRUE(rebuilt.ok());
  auto fresh = testing::openSnapshot(dump_, exe_);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(asVector((*rebuilt)->retained), asVector((*fresh)->retained));
  EXPECT_EQ(asVector((*rebuilt)->types->assignment), asVector((*fresh)->types->assignment));
  EXPECT_EQ(asVector((*rebuilt)->types->assignments), asVector((*fresh)->types->assignments));
}

// The reader's model, kept and read back over the same file: every record
// and string as the reader made it (the oracle: the model of the snapshot
// built from the dump, sorted as the index keeps it).
TEST_P(SnapshotIndex, TheModelComesBackAsTheReaderMadeIt) {
  auto built = testing::openSnapshot(dump_, exe_);
  ASSERT_TRUE(built.ok()) << built.error().message();
  const model::HeapModel& want = (**built).model;
  ASSERT_TRUE(cache::modelIsCacheable(want));
  cache::IndexWriter writer;
  cache::addModelSections(want, writer);
  const std::string path =
      testing::scratch().file("model-index-" + testing::testName(GetParam()) + ".ghx");
  ASSERT_TRUE(writer.write(path, testKey(3)).ok());
  auto index = cache::IndexFile::open(path, testKey(3));
  ASSERT_TRUE(index.ok()) << index.error().message();
  ASSERT_TRUE(cache::hasModel(**index));
  auto file = MappedFile::open(dump_);
  ASSERT_TRUE(file.ok());
  auto got = cache::readModelSections(**index, file.take());
  ASSERT_TRUE(got.ok()) << got.error().message();
  const model::HeapModel& d = *got;

  ASSERT_TRUE(d.heap_dump && want.heap_dump);
  EXPECT_EQ(d.heap_dump->version, want.heap_dump->version);
  EXPECT_EQ(d.format, want.format);
  EXPECT_EQ(d.params.arch, want.params.arch);
  EXPECT_EQ(d.params.go_version, want.params.go_version);
  EXPECT_EQ(d.params.ptr_size, want.params.ptr_size);
  EXPECT_EQ(d.params.heap_start, want.params.heap_start);
  EXPECT_EQ(asVector(d.objects.addr), asVector(want.objects.addr));
  EXPECT_EQ(asVector(d.objects.size), asVector(want.objects.size));
  EXPECT_EQ(asVector(d.objects.layout), asVector(want.objects.layout));
  EXPECT_EQ(asVector(d.objects.span_metadata), asVector(want.objects.span_metadata));
  ASSERT_EQ(d.objects.count(), want.objects.count());
  for (size_t i = 0; i < d.objects.count(); i++) {
    ASSERT_EQ(d.objects.offset[i], want.objects.offset[i]) << i;
  }
  EXPECT_EQ(d.layouts.offsets, want.layouts.offsets);
  EXPECT_EQ(d.layouts.begin, want.layouts.begin);
  EXPECT_EQ(d.total_field_entries, want.total_field_entries);
  ASSERT_EQ(d.types.size(), want.types.size());
  for (size_t i = 0; i < d.types.size(); i++) EXPECT_EQ(d.types[i].name, want.types[i].name);
  ASSERT_EQ(d.goroutines.size(), want.goroutines.size());
  for (size_t i = 0; i < d.goroutines.size(); i++) {
    EXPECT_EQ(d.goroutines[i].wait_reason, want.goroutines[i].wait_reason);
    EXPECT_EQ(d.goroutines[i].goid, want.goroutines[i].goid);
    EXPECT_EQ(d.goroutines[i].first_frame, want.goroutines[i].first_frame);
  }
  ASSERT_EQ(d.frames.size(), want.frames.size());
  for (size_t i = 0; i < d.frames.size(); i++) {
    EXPECT_EQ(d.frames[i].function, want.frames[i].function);
    EXPECT_EQ(d.frames[i].pc, want.frames[i].pc);
    EXPECT_EQ(d.bytes(d.frames[i].contents).data(),
              d.region(0).data() + want.frames[i].contents.offset);
  }
  ASSERT_EQ(d.profile_frames.size(), want.profile_frames.size());
  for (size_t i = 0; i < d.profile_frames.size(); i++) {
    EXPECT_EQ(d.profile_frames[i].function, want.profile_frames[i].function);
    EXPECT_EQ(d.profile_frames[i].file, want.profile_frames[i].file);
  }
  EXPECT_EQ(d.alloc_samples.size(), want.alloc_samples.size());
  EXPECT_EQ(d.buckets.size(), want.buckets.size());
  EXPECT_EQ(d.finalizers.size(), want.finalizers.size());
  EXPECT_EQ(d.itabs.size(), want.itabs.size());
  EXPECT_EQ(d.memstats.heap_alloc, want.memstats.heap_alloc);
  EXPECT_EQ(d.memstats.pause_ns, want.memstats.pause_ns);
  EXPECT_EQ(d.data.contents.offset, want.data.contents.offset);
  EXPECT_EQ(d.bss.layout, want.bss.layout);
  EXPECT_EQ(d.heap_dump->record_counts, want.heap_dump->record_counts);
  EXPECT_EQ(d.warnings, want.warnings);
  // Views of the index, not copies.
  EXPECT_EQ(d.objects.addr.ownedBytes(), 0u);
}

// A model that does not fit the file it is read over (a shorter dump) is
// refused by name.
TEST_P(SnapshotIndex, AModelOverAnotherFileIsRefused) {
  auto built = testing::openSnapshot(dump_, exe_);
  ASSERT_TRUE(built.ok());
  cache::IndexWriter writer;
  cache::addModelSections((**built).model, writer);
  const std::string path =
      testing::scratch().file("model-other-" + testing::testName(GetParam()) + ".ghx");
  ASSERT_TRUE(writer.write(path, testKey(4)).ok());
  auto index = cache::IndexFile::open(path, testKey(4));
  ASSERT_TRUE(index.ok());
  // The first half of the dump: the objects beyond it must be refused.
  const std::string half = testing::scratch().file("model-half-" + testing::testName(GetParam()));
  {
    auto whole = MappedFile::open(dump_);
    ASSERT_TRUE(whole.ok());
    std::ofstream out(half, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(whole->data()),
              static_cast<std::streamsize>(whole->size() / 2));
  }
  auto file = MappedFile::open(half);
  ASSERT_TRUE(file.ok());
  auto got = cache::readModelSections(**index, file.take());
  ASSERT_FALSE(got.ok());
  const std::string& why = got.error().message();
  EXPECT_TRUE(why.find("does not fit the dump") != std::string::npos ||
              why.find("outside the dump") != std::string::npos)
      << why;
}

INSTANTIATE_TEST_SUITE_P(GoVersions, SnapshotIndex, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

// Parts whose checksums would pass but whose ids are wrong (a bug, or a
// file made to look right): each damage is refused by name.
TEST(SnapshotIndexChecks, DamagedPartsAreRefused) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24";
  auto built = testing::openSnapshot(dir + "/zoo.dump", dir + "/zoo");
  ASSERT_TRUE(built.ok()) << built.error().message();
  const analysis::Snapshot& b = **built;
  struct Damage {
    const char* what;
    std::function<void(analysis::ComputedParts&)> apply;
  };
  const uint32_t nodes = b.heap.nodeCount();
  const std::vector<Damage> damages{
      {"an edge to a node that is not there",
       [&](analysis::ComputedParts& p) { p.heap.successors.targets[3] = nodes; }},
      {"offsets that decrease",
       [&](analysis::ComputedParts& p) { p.heap.successors.begin[2] = UINT32_MAX - 1; }},
      {"a root record past its table",
       [&](analysis::ComputedParts& p) { p.heap.root_record.back() = UINT32_MAX; }},
      {"a dominator out of range", [&](analysis::ComputedParts& p) { p.dom.idom[5] = nodes + 9; }},
      {"a cycle in the dominator tree",
       [&](analysis::ComputedParts& p) {
         const auto under_root = p.dominator_children.neighbors(b.heap.superRoot());
         ASSERT_GE(under_root.size(), 2u);
         const NodeId first = under_root[0], second = under_root[1];
         p.dom.idom[second] = first;
         p.dom.idom[first] = second;
       }},
      {"retained sizes cut short",
       [&](analysis::ComputedParts& p) {
         std::vector<uint64_t> values = p.retained.values();
         values.pop_back();
         p.retained = PackedColumn(std::move(values));
       }},
      {"a type id past the DWARF's",
       [&](analysis::ComputedParts& p) {
         for (typing::TypeAssignment& a : p.types->assignments) {
           if (a.form != typing::TypeForm::None) {
             a.layout = UINT32_MAX - 5;
             return;
           }
         }
       }},
      {"an assignment index past the table",
       [&](analysis::ComputedParts& p) {
         std::vector<uint32_t> indexes = p.types->assignment.values();
         indexes[3] = static_cast<uint32_t>(p.types->assignments.size());
         p.types->assignment = PackedIds(std::move(indexes));
       }},
      {"a dominator child out of range",
       [&](analysis::ComputedParts& p) { p.dominator_children.targets[0] = nodes; }},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    analysis::ComputedParts parts = analysis::computedPartsOf(b);
    // Owned copies, so that the damage does not reach `b`.
    auto own = [](auto& column) { column = column.takeVector(); };
    own(parts.heap.successors.targets);
    own(parts.heap.successors.begin);
    own(parts.heap.root_record);
    own(parts.dom.idom);
    parts.retained = PackedColumn(parts.retained.values());
    parts.types->assignment = PackedIds(parts.types->assignment.values());
    own(parts.types->assignments);
    own(parts.dominator_children.targets);
    d.apply(parts);
    auto model = dump::readDumpFile(dir + "/zoo.dump");
    ASSERT_TRUE(model.ok());
    analysis::LoadOptions load;
    load.executable = analysis::bindExecutable(dir + "/zoo", *model);
    auto restored = analysis::restoreSnapshot(*model, std::move(parts), load);
    EXPECT_FALSE(restored.ok());
    EXPECT_GT(model->objects.count(), 0u);
  }
}

// A dominator tree whose children, counts and retained sizes all agree, but
// which is not a tree: the checks that replaced the walk from the root must
// still find what that walk found.
class ConsistentTreeDamage : public ::testing::Test {
 protected:
  void SetUp() override {
    auto built = testing::openSnapshot(dir_ + "/zoo.dump", dir_ + "/zoo");
    ASSERT_TRUE(built.ok()) << built.error().message();
    snapshot_ = built.take();
  }
  // Restores parts whose dominators `damage` changed, with the children
  // made again from them, as a file written with those dominators would
  // hold; the refusal's message. The check runs on one thread and on 7
  // (ranges of 64 nodes), and must say the same.
  std::string refusal(const std::function<void(analysis::ComputedParts&)>& damage) {
    std::string said[2];
    for (int split = 0; split < 2; split++) {
      analysis::ComputedParts parts = analysis::computedPartsOf(*snapshot_);
      parts.dom.idom = parts.dom.idom.takeVector();
      parts.retained = PackedColumn(parts.retained.values());
      damage(parts);
      parts.dominator_children = analysis::dominatorChildren(parts.dom, parts.retained.view());
      auto model = dump::readDumpFile(dir_ + "/zoo.dump");
      EXPECT_TRUE(model.ok());
      analysis::LoadOptions load;
      load.executable = analysis::bindExecutable(dir_ + "/zoo", *model);
      load.threads = split == 0 ? 1 : 7;
      load.min_nodes_per_thread = 64;
      auto restored = analysis::restoreSnapshot(*model, std::move(parts), load);
      said[split] = restored.ok() ? "" : restored.error().message();
    }
    EXPECT_EQ(said[0], said[1]) << "one thread, then 7";
    return said[0];
  }
  // The first object for which `pick` holds, or kNoNode.
  NodeId firstObject(const std::function<bool(NodeId)>& pick) const {
    for (NodeId n = 0; n < snapshot_->heap.objectCount(); n++) {
      if (pick(n)) return n;
    }
    return kNoNode;
  }
  // Two roots that dominate nothing (retained 0), directly under the super-root.
  std::pair<NodeId, NodeId> twoEmptyRoots() const {
    const analysis::Snapshot& s = *snapshot_;
    std::vector<NodeId> found;
    for (NodeId n = s.heap.objectCount(); n < s.heap.nodeCount() && found.size() < 2; n++) {
      if (n != s.heap.superRoot() && s.dom.idom[n] == s.heap.superRoot() && s.retained[n] == 0) {
        found.push_back(n);
      }
    }
    EXPECT_EQ(found.size(), 2u);
    return {found[0], found[1]};
  }

  const std::string dir_ = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24";
  std::shared_ptr<const analysis::Snapshot> snapshot_;
};

TEST_F(ConsistentTreeDamage, TheUndamagedPartsAreRestored) {
  EXPECT_EQ(refusal([](analysis::ComputedParts&) {}), "");
}

TEST_F(ConsistentTreeDamage, ACycleOfRootsIsRefused) {
  // Not a structured binding: clang 14 cannot capture one in a lambda.
  const std::pair<NodeId, NodeId> roots = twoEmptyRoots();
  const NodeId a = roots.first, b = roots.second;
  // Each dominates the other: no walk up from either ends, yet every row,
  // count and retained size (0 + 0) agrees.
  EXPECT_NE(refusal([&](analysis::ComputedParts& p) {
              p.dom.idom[a] = b;
              p.dom.idom[b] = a;
            }).find("a cycle of dominators"),
            std::string::npos);
}

TEST_F(ConsistentTreeDamage, ACycleOfObjectsIsRefusedByTheRetainedSizes) {
  const analysis::Snapshot& s = *snapshot_;
  // An object and one it dominates, each made the other's dominator.
  const NodeId child = firstObject(
      [&](NodeId n) { return s.dom.idom[n] != kNoNode && s.heap.isObject(s.dom.idom[n]); });
  ASSERT_NE(child, kNoNode);
  const NodeId parent = s.dom.idom[child];
  EXPECT_NE(refusal([&](analysis::ComputedParts& p) {
              p.dom.idom[parent] = child;
            }).find("retained size"),
            std::string::npos);
}

TEST_F(ConsistentTreeDamage, ARetainedSizeThatDoesNotAddUpIsRefused) {
  const NodeId root = snapshot_->heap.superRoot();
  EXPECT_NE(refusal([&](analysis::ComputedParts& p) {
              std::vector<uint64_t> values = p.retained.values();
              values[root] += 8;
              p.retained = PackedColumn(std::move(values));
            }).find("a retained size that is not its node's and its children's"),
            std::string::npos);
}

TEST_F(ConsistentTreeDamage, ChildrenUnderAnUnreachableNodeAreRefused) {
  const analysis::Snapshot& s = *snapshot_;
  const NodeId garbage =
      firstObject([&](NodeId n) { return !s.reachable(n) && !s.isRuntimeMetadata(n); });
  ASSERT_NE(garbage, kNoNode) << "zoo.dump has no garbage";
  const NodeId a = twoEmptyRoots().first;
  EXPECT_NE(refusal([&](analysis::ComputedParts& p) {
              p.dom.idom[a] = garbage;
            }).find("children under a node with no dominator"),
            std::string::npos);
}

}  // namespace
}  // namespace goheap
