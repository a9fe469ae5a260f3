// goheap watch --metrics' exposition text (cli/watch_metrics.h), checked by
// Prometheus's own linter, promtool (Debian's prometheus package), and read
// back sample by sample: label values with quotes, backslashes and
// newlines (Go type names hold quotes: struct tags) come out escaped as the
// text format wants.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/watch_metrics.h"
#include "support/goheap_process.h"

namespace goheap::cli {
namespace {

TEST(WatchMetrics, LabelValuesAreEscaped) {
  EXPECT_EQ(prometheusLabelValue("main.T"), "main.T");
  EXPECT_EQ(prometheusLabelValue("struct { A int \"json:\\\"a\\\"\" }"),
            "struct { A int \\\"json:\\\\\\\"a\\\\\\\"\\\" }");
  EXPECT_EQ(prometheusLabelValue("a\nb"), "a\\nb");
}

TEST(WatchMetrics, BeforeTheFirstSnapOnlyTheCount) {
  EXPECT_EQ(prometheusText(nullptr),
            "# HELP goheap_snaps_total Snaps goheap watch has taken of the process.\n"
            "# TYPE goheap_snaps_total counter\n"
            "goheap_snaps_total 0\n");
}

TEST(WatchMetrics, PromtoolFindsNoProblem) {
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/promtool"))
      << "promtool missing: scripts/install-deps.sh installs Debian's prometheus package";
  WatchMetrics m;
  m.types = {{"main.Session", 4096, 12},
             {"struct { Name string \"json:\\\"name\\\"\" }", 64, 2},
             {"map[string]\\x", 48, 1}};
  m.reachable_bytes = 123456;
  m.goroutines = 7;
  m.goroutines_leaked = 1;
  m.memory = {{"heap_objects", 1000}, {"c_heap", 2000}};
  m.pause_seconds = 0.0125;
  m.snaps_total = 3;
  const std::string text = prometheusText(&m);
  const std::string file = testing::scratch().file("metrics.txt");
  std::ofstream(file) << text;
  const std::string command = "/usr/bin/promtool check metrics < " + file + " 2>&1";
  std::FILE* p = ::popen(command.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string said;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, p) != nullptr) said += buffer;
  const int status = ::pclose(p);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said << "\n" << text;
  EXPECT_EQ(said, "") << text;
  EXPECT_NE(text.find("goheap_type_retained_bytes{type=\"main.Session\"} 4096\n"),
            std::string::npos);
  EXPECT_NE(text.find("goheap_type_objects{type=\"map[string]\\\\x\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("goheap_process_memory_bytes{category=\"c_heap\"} 2000\n"),
            std::string::npos);
  EXPECT_NE(text.find("goheap_snap_pause_seconds 0.012500\n"), std::string::npos);
  EXPECT_NE(text.find("goheap_snaps_total 3\n"), std::string::npos);
}

}  // namespace
}  // namespace goheap::cli
