// When snap may fork a process (acquire/process_copy.h): the refusals,
// each naming its reason, against conditions set by hand; and the
// conditions of this very process, against /proc read here.
#include "acquire/process_copy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace goheap::acquire {
namespace {

ForkConditions roomy() {
  ForkConditions c;
  c.amd64 = true;
  c.rss_anon_bytes = 1ULL << 30;
  c.mem_available_bytes = 8ULL << 30;
  c.cgroup_room_bytes = ~0ULL;
  return c;
}

TEST(ForkRefusal, EachConditionIsNamed) {
  EXPECT_EQ(forkRefusal(roomy()), "");

  ForkConditions c = roomy();
  c.amd64 = false;
  EXPECT_NE(forkRefusal(c).find("amd64 only"), std::string::npos);

  c = roomy();
  c.seccomp = 2;
  EXPECT_NE(forkRefusal(c).find("seccomp (Seccomp: 2"), std::string::npos);

  // A whole rewrite of 1 GiB, and a margin, must fit.
  c = roomy();
  c.mem_available_bytes = (1ULL << 30) + (64ULL << 20);
  EXPECT_NE(forkRefusal(c).find("the machine has 1.06 GiB available"), std::string::npos)
      << forkRefusal(c);
  c.mem_available_bytes = 2ULL << 30;
  EXPECT_EQ(forkRefusal(c), "");

  // A cgroup needs only the guard's margin (CgroupGuard drops the fork
  // before it runs out)...
  c = roomy();
  c.cgroup_room_bytes = 512ULL << 20;
  EXPECT_EQ(forkRefusal(c), "");
  c.cgroup_room_bytes = kForkCgroupMargin;
  EXPECT_EQ(forkRefusal(c), "");
  c.cgroup_room_bytes = kForkCgroupMargin - 1;
  EXPECT_NE(forkRefusal(c).find("its memory cgroup has 8 MiB left below its limit, less than the "
                                "8 MiB a fork keeps free"),
            std::string::npos)
      << forkRefusal(c);
  // ...unless a dropped fork could not be copied again: a streamed core.
  c = roomy();
  c.core_restartable = false;
  EXPECT_EQ(forkRefusal(c), "");
  c.cgroup_room_bytes = 512ULL << 20;
  EXPECT_NE(forkRefusal(c).find("its memory cgroup has 512 MiB left below its limit; a fork "
                                "dropped to keep that room could not be copied again into a core "
                                "already streamed (-o -)"),
            std::string::npos)
      << forkRefusal(c);
}

uint64_t kibOf(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::strtoull(line.c_str() + key.size(), nullptr, 10);
  }
  return 0;
}

TEST(ForkConditions, OfThisProcess) {
  const ForkConditions c = readForkConditions(::getpid());
#if defined(__x86_64__)
  EXPECT_TRUE(c.amd64);
#endif
  EXPECT_EQ(c.seccomp, static_cast<int>(kibOf("/proc/self/status", "Seccomp:")));
  EXPECT_GT(c.rss_anon_bytes, 0u);
  // Both read moments apart: within 64 MiB of each other.
  const uint64_t available = kibOf("/proc/meminfo", "MemAvailable:") * 1024;
  EXPECT_LT(c.mem_available_bytes, available + (64ULL << 20));
  EXPECT_GT(c.mem_available_bytes + (64ULL << 20), available);
  EXPECT_GT(c.cgroup_room_bytes, 0u);
}

}  // namespace
}  // namespace goheap::acquire
