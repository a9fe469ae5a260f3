// The test binary's main, in place of gtest_main. Under CI=true a skipped
// test that tests/skip-allowlist.txt does not allow fails: a skip is
// otherwise untested code that a green run hides. The failure is added as
// the test ends, so gtest reports the test FAILED (not "[  SKIPPED ]",
// which ctest would take for a skip whatever the exit code) and the
// process exits 1; ctest runs each test in a process of its own, so
// exactly that test fails. Elsewhere a skip stays a skip.
//
// Each skip is also printed on a line of its own, which scripts/test.sh
// gathers from ctest's log into its closing summary:
//   GOHEAP-SKIPPED Suite.Name: message     a skip that stands
//   GOHEAP-SKIP-FAILS Suite.Name: message  a skip that CI does not allow
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "support/skip_allowlist.h"

namespace {

using goheap::testing::SkipAllowlist;

// The messages of the skips recorded in `result`, on one line.
std::string skipMessages(const ::testing::TestResult& result) {
  std::string said;
  for (int i = 0; i < result.total_part_count(); i++) {
    const ::testing::TestPartResult& part = result.GetTestPartResult(i);
    if (!part.skipped()) continue;
    if (!said.empty()) said += " / ";
    said += goheap::testing::oneLine(part.message());
  }
  return said;
}

bool ciRun() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// Judges each test that ends skipped. Added after gtest's printer, it hears
// of a test's end first (gtest tells the end of a test to its listeners in
// reverse order), while the test is still the current one: a failure added
// then is the test's, and the printer reports it.
class SkipJudge : public ::testing::EmptyTestEventListener {
 public:
  SkipJudge(bool ci, std::string allowlist_path)
      : ci_(ci), allowlist_path_(std::move(allowlist_path)) {}

  void OnTestEnd(const ::testing::TestInfo& test) override {
    if (!test.result()->Skipped()) return;
    const std::string name = std::string(test.test_suite_name()) + "." + test.name();
    std::string message = skipMessages(*test.result());
    if (message.empty()) message = "(no message)";
    if (!ci_) {
      std::cout << "GOHEAP-SKIPPED " << name << ": " << message << "\n";
      return;
    }
    const goheap::Expected<SkipAllowlist>& list = allowlist();
    if (const goheap::testing::SkipAllowance* allowed =
            list ? list->covering(name, message) : nullptr) {
      std::cout << "GOHEAP-SKIPPED " << name << ": " << message
                << " (allowed under CI: " << allowed->reason << ")\n";
      return;
    }
    std::cout << "GOHEAP-SKIP-FAILS " << name << ": " << message << "\n";
    const std::string bar(78, '!');
    ADD_FAILURE() << "\n"
                  << bar << "\nSKIPPED UNDER CI=true, which " << allowlist_path_
                  << " does not allow:\n  " << message
                  << "\nMake the machine meet the condition (scripts/install-deps.sh, ctest's "
                     "fixtures),\nor, if no CI machine can, add an entry that names it, with "
                     "the reason.\n"
                  << (list ? "" : "The allowlist is unusable: " + list.error().message() + "\n")
                  << bar;
  }

 private:
  // Read at the first skip that needs it.
  const goheap::Expected<SkipAllowlist>& allowlist() {
    if (!allowlist_) allowlist_.emplace(SkipAllowlist::read(allowlist_path_));
    return *allowlist_;
  }

  bool ci_;
  std::string allowlist_path_;
  std::optional<goheap::Expected<SkipAllowlist>> allowlist_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(
      std::make_unique<SkipJudge>(ciRun(),
                                  std::string(GOHEAP_SOURCE_DIR) + "/tests/skip-allowlist.txt")
          .release());
  return RUN_ALL_TESTS();
}
