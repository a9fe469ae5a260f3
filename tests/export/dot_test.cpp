// --to dot --object ADDR: Graphviz renders it, and it holds the paths
// analysis::pathsToRoots finds.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/paths.h"
#include "support/export_support.h"
#include "support/go_versions.h"
#include "support/param_names.h"

namespace goheap {
namespace {

class DotFile : public ::testing::TestWithParam<std::string> {};

TEST_P(DotFile, RendersAndHoldsThePathsToRoots) {
  const testing::TypedDump loaded =
      testing::loadTypedDump(std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam());
  if (!loaded.missing.empty()) GTEST_SKIP() << loaded.missing;
  ASSERT_TRUE(loaded.error.empty()) << loaded.error;
  const analysis::Snapshot& s = *loaded.snapshot;
  // An object a few steps from its roots: the deepest of the big retainers.
  NodeId focus = kNoNode;
  size_t longest = 0;
  for (NodeId o = 0; o < s.heap.objectCount(); o += 7) {
    if (!s.reachable(o)) continue;
    const auto paths = analysis::pathsToRoots(s, o, 1);
    if (!paths.empty() && paths[0].steps.size() > longest) {
      longest = paths[0].steps.size();
      focus = o;
    }
  }
  ASSERT_NE(focus, kNoNode);
  ASSERT_GE(longest, 3u);
  exporting::ConvertOptions options;
  options.focus = focus;
  const std::string dot_file = testing::writeFormat(s, "dot", options);
  const std::string dot = testing::readWholeFile(dot_file);
  for (const analysis::Path& p : analysis::pathsToRoots(s, focus, options.max_paths)) {
    for (size_t i = 0; i + 1 < p.steps.size(); i++) {
      const std::string edge = std::string("n")
                                   .append(std::to_string(p.steps[i].node.node))
                                   .append(" -> n")
                                   .append(std::to_string(p.steps[i + 1].node.node));
      EXPECT_NE(dot.find(edge), std::string::npos) << edge;
      if (!p.steps[i].field.empty()) {
        EXPECT_NE(dot.find(p.steps[i].field), std::string::npos) << p.steps[i].field;
      }
    }
  }

  GOHEAP_REQUIRE_TOOL(testing::runCommand("dot -V >/dev/null 2>&1") == 0,
                      "Graphviz's dot is not installed (scripts/install-deps.sh installs it)");
  const std::string svg = dot_file + ".svg";
  const std::string errors = dot_file + ".err";
  EXPECT_EQ(testing::runCommand("dot -Tsvg -o " + svg + " " + dot_file + " 2>" + errors), 0);
  EXPECT_EQ(testing::readWholeFile(errors), "") << "dot's warnings";
  EXPECT_NE(testing::readWholeFile(svg).find("<svg"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(RealDumps, DotFile,
                         ::testing::ValuesIn(testing::inEachVersion({"retention"})),
                         testing::pathParamName);

}  // namespace
}  // namespace goheap
