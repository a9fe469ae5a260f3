#include "util/host_names.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace goheap {
namespace {

using Addresses = std::optional<std::vector<std::string>>;

TEST(HostNames, LocalhostIsTheLoopbackAddressesInAnyCaseWithOrWithoutTheFinalDot) {
  const Addresses loopback = std::vector<std::string>{"127.0.0.1", "::1"};
  EXPECT_EQ(addressesWithoutResolver("localhost"), loopback);
  EXPECT_EQ(addressesWithoutResolver("LocalHost."), loopback);
  EXPECT_EQ(addressesWithoutResolver("[localhost]"), loopback);
}

TEST(HostNames, AnAddressLiteralIsItselfAndParsesAsOne) {
  for (const std::string literal : {"127.0.0.1", "0.0.0.0", "10.1.2.3", "::1", "fe80::1", "::"}) {
    const Addresses got = addressesWithoutResolver(literal);
    ASSERT_TRUE(got.has_value()) << literal;
    ASSERT_EQ(got->size(), 1u);
    EXPECT_EQ(got->front(), literal);
    unsigned char buffer[16];
    const int family = literal.find(':') == std::string::npos ? AF_INET : AF_INET6;
    EXPECT_EQ(::inet_pton(family, got->front().c_str(), buffer), 1) << literal;
  }
  EXPECT_EQ(addressesWithoutResolver("[::1]"), Addresses(std::vector<std::string>{"::1"}));
}

TEST(HostNames, OtherNamesAreLeftToTheResolver) {
  for (const char* name : {"example.com", "localhost.example.com", "mylocalhost", "", "[]", "1.2.3",
                           "256.1.1.1", "::g"}) {
    EXPECT_EQ(addressesWithoutResolver(name), std::nullopt) << name;
  }
}

}  // namespace
}  // namespace goheap
