#include "util/go_version.h"

#include <gtest/gtest.h>

namespace goheap {
namespace {

TEST(ParseGoVersion, MinorOfReleasesAndCandidates) {
  EXPECT_EQ(parseGoVersion("go1.24.4").minor, 24);
  EXPECT_EQ(parseGoVersion("go1.21rc2").minor, 21);
  EXPECT_EQ(parseGoVersion("go1.5").minor, 5);
  EXPECT_FALSE(parseGoVersion("devel go1.27-1234abcd Tue").minor.has_value());
  EXPECT_FALSE(parseGoVersion("").minor.has_value());
  EXPECT_FALSE(parseGoVersion("go2").minor.has_value());
  EXPECT_TRUE(parseGoVersion("go1.26.1").atLeast(26));
  EXPECT_FALSE(parseGoVersion("go1.25.12").atLeast(26));
  EXPECT_FALSE(parseGoVersion("unknown").atLeast(0));
}

// cmd/link appends the experiments that differ from the release's
// defaults: after a space when the version has a '-' of its own, else
// after '-' since Go 1.26.
TEST(ParseGoVersion, ExperimentsTheLinkerAppends) {
  const GoVersion v = parseGoVersion("go1.27.4-X:nogreenteagc,mapsplitgroup");
  EXPECT_EQ(v.minor, 27);
  EXPECT_EQ(v.experiments, "nogreenteagc,mapsplitgroup");
  EXPECT_TRUE(v.hasExperiment("nogreenteagc"));
  EXPECT_TRUE(v.hasExperiment("mapsplitgroup"));
  EXPECT_FALSE(v.hasExperiment("greenteagc"));
  EXPECT_FALSE(v.hasExperiment("mapsplit"));
  EXPECT_TRUE(parseGoVersion("go1.25.12 X:greenteagc").hasExperiment("greenteagc"));
  EXPECT_TRUE(parseGoVersion("devel go1.27-abc X:jsonv2").hasExperiment("jsonv2"));
  EXPECT_FALSE(parseGoVersion("go1.24.4").hasExperiment("greenteagc"));
  EXPECT_TRUE(parseGoVersion("go1.24.4").experiments.empty());
  // "X:" inside some other word is no experiment list.
  EXPECT_TRUE(parseGoVersion("go1.24.4X:foo").experiments.empty());
}

}  // namespace
}  // namespace goheap
