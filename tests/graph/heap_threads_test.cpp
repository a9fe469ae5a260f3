// The graph build splits the objects' edges over threads: the graph must be
// the same however many, on the real test dumps of every Go release. The
// split is forced down to a few objects per thread, as the dumps are small.
#include <gtest/gtest.h>

#include <string>

#include "dump/reader.h"
#include "graph/heap.h"
#include "model/object_order.h"
#include "support/go_versions.h"
#include "support/param_names.h"

namespace goheap::graph {
namespace {

class HeapThreads : public ::testing::TestWithParam<std::string> {};

void expectSameCsr(const Csr& a, const Csr& b) {
  ASSERT_EQ(a.begin.size(), b.begin.size());
  ASSERT_EQ(a.targets.size(), b.targets.size());
  for (size_t i = 0; i < a.begin.size(); i++) ASSERT_EQ(a.begin[i], b.begin[i]) << i;
  for (size_t i = 0; i < a.targets.size(); i++) ASSERT_EQ(a.targets[i], b.targets[i]) << i;
}

TEST_P(HeapThreads, TheGraphIsTheSameOnOneTwoAndEightThreads) {
  for (const char* program : {"zoo", "leaks", "retention"}) {
    const std::string path =
        std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam() + "/" + program + ".dump";
    SCOPED_TRACE(path);
    auto model = dump::readDumpFile(path);
    ASSERT_TRUE(model.ok()) << model.error().message();
    model::sortObjectsByAddress(*model);
    BuildOptions serial;
    serial.threads = 1;
    auto one = buildHeap(*model, serial);
    ASSERT_TRUE(one.ok()) << one.error().message();
    for (unsigned threads : {2u, 8u}) {
      BuildOptions split;
      split.threads = threads;
      split.min_objects_per_thread = 16;
      auto many = buildHeap(*model, split);
      ASSERT_TRUE(many.ok()) << many.error().message();
      expectSameCsr(one->successors, many->successors);
      EXPECT_EQ(one->root_kind.size(), many->root_kind.size());
      EXPECT_TRUE(one->root_record == many->root_record);
      EXPECT_EQ(one->non_heap_refs, many->non_heap_refs);
      EXPECT_EQ(one->nil_slots, many->nil_slots);
      EXPECT_EQ(one->conservative_stack_edges, many->conservative_stack_edges);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GoVersions, HeapThreads, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap::graph
