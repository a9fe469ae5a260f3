// The typing pass on several threads: the heap is cut into chunks of
// objects, scanned in rounds, and what one chunk's scan finds for another's
// objects is applied in chunk order (typing/heap_types.cpp). The types
// must depend on the chunk size only, never on the thread count; the test
// dumps are far smaller than a default chunk, so they are cut into chunks
// of a few objects here, down to one object a chunk.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/go_versions.h"
#include "support/open_heap.h"
#include "typing/heap_types.h"

namespace goheap {
namespace {

// Every object's assignment and every count, as one comparable list.
struct TypesSeen {
  std::vector<typing::TypeAssignment> per_object;
  std::vector<uint64_t> counts;
  bool operator==(const TypesSeen&) const = default;
};

TypesSeen seen(const typing::HeapTypes& t) {
  TypesSeen s;
  for (NodeId o = 0; o < t.objectCount(); o++) s.per_object.push_back(t.of(o));
  s.counts = {t.typed_objects, t.conflicts, t.typed_from_roots, t.typed_from_headers,
              t.inferred_objects};
  return s;
}

size_t differentObjects(const TypesSeen& a, const TypesSeen& b) {
  size_t n = 0;
  for (size_t o = 0; o < a.per_object.size(); o++) n += a.per_object[o] == b.per_object[o] ? 0 : 1;
  return n;
}

class TypingThreads : public ::testing::TestWithParam<std::string> {
 protected:
  void check(const std::string& dump, const std::string& exe) {
    SCOPED_TRACE(exe);
    auto snap = testing::openSnapshot(dump, exe);
    ASSERT_TRUE(snap.ok()) << snap.error().message();
    const analysis::Snapshot& s = **snap;
    ASSERT_NE(s.types, nullptr) << s.types_problem;
    const bin::DebugInfo& table = *s.exe->typeTable();
    // The snapshot's own types: one chunk, the serial sweep.
    const TypesSeen serial = seen(*s.types);
    ASSERT_GT(s.types->typed_objects, 100u);
    auto typeWith = [&](unsigned threads, size_t chunk) {
      typing::TypingOptions o;
      o.threads = threads;
      o.objects_per_chunk = chunk;
      o.fewest_to_share = 0;  // every round on every thread, however small
      return seen(typing::typeHeap(s.model, s.heap, *s.exe, table, o));
    };
    EXPECT_EQ(typeWith(1, size_t{1} << 30), serial) << "one chunk is the serial sweep";
    for (const size_t chunk : {size_t{1}, size_t{64}, size_t{1024}}) {
      SCOPED_TRACE("chunks of " + std::to_string(chunk) + " objects");
      const TypesSeen one = typeWith(1, chunk);
      for (const unsigned threads : {2u, 3u, 8u}) {
        const TypesSeen many = typeWith(threads, chunk);
        EXPECT_EQ(many.counts, one.counts) << threads << " threads";
        EXPECT_EQ(differentObjects(many, one), 0u) << threads << " threads";
      }
      // Chunks change the order in which evidence arrives, so the winner
      // of a conflict could change; on these heaps none does, even with a
      // chunk per object: the serial sweep is the oracle.
      EXPECT_EQ(differentObjects(one, serial), 0u);
      EXPECT_EQ(one.counts, serial.counts);
    }
  }
};

// A list whose nodes lie in different chunks takes a round per node, and
// waking threads for each cost 50 times the typing itself (a shuffled list
// of a million nodes: 40 s instead of 0.8 s). Rounds with little to do run
// on the calling thread: with a chunk per object, nearly every round here.
TEST_P(TypingThreads, SmallRoundsWakeNoThread) {
  const std::string d = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  auto snap = testing::openSnapshot(d + "/leaks.dump", d + "/leaks");
  ASSERT_TRUE(snap.ok()) << snap.error().message();
  const analysis::Snapshot& s = **snap;
  ASSERT_NE(s.types, nullptr) << s.types_problem;
  for (const size_t fewest : {size_t{0}, typing::TypingOptions{}.fewest_to_share}) {
    typing::TypingOptions::Rounds rounds;
    typing::TypingOptions o;
    o.threads = 4;
    o.objects_per_chunk = 1;
    o.fewest_to_share = fewest;
    o.rounds = &rounds;
    const typing::HeapTypes types =
        typing::typeHeap(s.model, s.heap, *s.exe, *s.exe->typeTable(), o);
    EXPECT_EQ(types.typed_objects, s.types->typed_objects);
    EXPECT_GT(rounds.rounds, 50u);
    if (fewest == 0) {
      EXPECT_GT(rounds.shared, rounds.rounds / 2) << "every round of two chunks is shared";
    } else {
      // Only the few that scan or apply thousands (the first after the
      // roots) are shared.
      EXPECT_LT(rounds.shared * 10, rounds.rounds) << rounds.shared << " shared";
    }
  }
}

TEST_P(TypingThreads, TypesDependOnTheChunksNeverOnTheThreads) {
  const std::string d = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  check(d + "/zoo.dump", d + "/zoo");
  check(d + "/zoo.dump", d + "/stripped/zoo");
  check(d + "/leaks.dump", d + "/leaks");
}

INSTANTIATE_TEST_SUITE_P(GoVersions, TypingThreads, ::testing::ValuesIn(testing::goVersions()),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
