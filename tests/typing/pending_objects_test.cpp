#include "typing/pending_objects.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace goheap::typing {
namespace {

// The order PendingObjects promises, kept the slow way: the lowest pending
// id at or after the sweep's position, else the lowest.
class SweepModel {
 public:
  void add(NodeId o) { pending_.insert(o); }
  bool empty() const { return pending_.empty(); }
  NodeId take() {
    auto it = pending_.lower_bound(position_);
    if (it == pending_.end()) it = pending_.begin();
    const NodeId o = *it;
    pending_.erase(it);
    position_ = o + 1;
    return o;
  }

 private:
  std::set<NodeId> pending_;
  NodeId position_ = 0;
};

TEST(PendingObjects, SweepsForwardAndTakesWhatWasAddedBehindInTheNextSweep) {
  PendingObjects p(1000);
  EXPECT_TRUE(p.empty());
  for (NodeId o : {500u, 7u, 999u, 64u}) p.add(o);
  EXPECT_EQ(p.take(), 7u);
  p.add(3);    // behind the sweep: next time round
  p.add(100);  // ahead: this sweep
  p.add(64);   // pending already: once
  EXPECT_EQ(p.take(), 64u);
  EXPECT_EQ(p.take(), 100u);
  EXPECT_EQ(p.take(), 500u);
  p.add(500);  // the one just taken: behind, so again next sweep
  EXPECT_EQ(p.take(), 999u);
  EXPECT_EQ(p.take(), 3u);
  EXPECT_EQ(p.take(), 500u);
  EXPECT_TRUE(p.empty());
}

// Sizes around each level's word boundary (64, 4096, 262144 bits) and a
// sparse and a dense mix of adds and takes, against the model.
TEST(PendingObjects, MatchesTheOrderedSetModelAcrossLevels) {
  std::mt19937 rng(29);
  for (const size_t count : {1u, 63u, 64u, 65u, 4095u, 4097u, 300000u}) {
    for (const unsigned adds_per_take : {1u, 3u}) {
      PendingObjects p(count);
      SweepModel model;
      std::uniform_int_distribution<NodeId> id(0, static_cast<NodeId>(count - 1));
      std::vector<NodeId> taken, expected;
      for (int step = 0; step < 20000; step++) {
        for (unsigned k = 0; k < adds_per_take; k++) {
          const NodeId o = id(rng);
          p.add(o);
          model.add(o);
        }
        ASSERT_EQ(p.empty(), model.empty());
        if (!model.empty() && step % 2 == 0) {
          taken.push_back(p.take());
          expected.push_back(model.take());
        }
      }
      while (!model.empty()) {
        ASSERT_FALSE(p.empty());
        taken.push_back(p.take());
        expected.push_back(model.take());
      }
      EXPECT_TRUE(p.empty());
      EXPECT_EQ(taken, expected) << count << " objects, " << adds_per_take << " adds a take";
    }
  }
}

}  // namespace
}  // namespace goheap::typing
