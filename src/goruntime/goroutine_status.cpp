#include "goruntime/goroutine_status.h"

#include <array>

namespace goheap::goruntime {
namespace {

struct StatusNames {
  uint32_t status;
  std::string_view traceback;    // gStatusStrings
  std::string_view description;  // goheap's listings
};

constexpr std::array<StatusNames, 10> kStatusNames = {{
    {kGidle, "idle", "idle"},
    {kGrunnable, "runnable", "runnable"},
    {kGrunning, "running", "running"},
    {kGsyscall, "syscall", "syscall"},
    {kGwaiting, "waiting", "waiting"},
    {kGdead, "dead", "dead"},
    {kGcopystack, "copystack", "copystack"},
    {kGpreempted, "preempted", "preempted"},
    {kGleaked, "leaked", "leaked (marked by the runtime)"},
    {kGdeadextra, "waiting for cgo callback", "waiting for cgo callback"},
}};

const StatusNames* namesOf(uint64_t status) {
  const uint64_t s = withoutScanBit(status);
  for (const StatusNames& n : kStatusNames) {
    if (n.status == s) return &n;
  }
  return nullptr;
}

}  // namespace

std::string_view gStatusName(uint64_t status) {
  const StatusNames* n = namesOf(status);
  return n == nullptr ? "???" : n->traceback;
}

std::string_view gStatusDescription(uint64_t status) {
  const StatusNames* n = namesOf(status);
  return n == nullptr ? "unknown" : n->description;
}

}  // namespace goheap::goruntime
