// Who may read the heap through goheap serve (src/serve/access.h): the
// Host check against DNS rebinding on loopback, the access token beyond it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "serve/access.h"

namespace goheap::serve {
namespace {

RequestCredentials withHost(std::string_view host) {
  RequestCredentials c;
  c.host = host;
  return c;
}

TEST(HttpAccess, LoopbackHostsAreKnownWithoutDns) {
  for (const char* host : {"localhost", "LocalHost", "127.0.0.1", "127.1.2.3", "::1"}) {
    EXPECT_TRUE(isLoopbackHost(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "::", "192.168.1.10", "example.com", "127.0.0.1.evil.com",
                           "localhost.evil.com", "128.0.0.1", ""}) {
    EXPECT_FALSE(isLoopbackHost(host)) << host;
  }
}

TEST(HttpAccess, LoopbackServerAcceptsLoopbackHostHeaders) {
  const AccessPolicy policy("127.0.0.1", 8080, {}, "");
  for (const char* host : {"localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:8080",
                           "127.0.0.2:9", "[::1]", "[::1]:8080", "LOCALHOST:8080"}) {
    EXPECT_TRUE(policy.judge(withHost(host)).allowed()) << host;
  }
}

TEST(HttpAccess, LoopbackServerRefusesOtherHostHeaders) {
  const AccessPolicy policy("127.0.0.1", 8080, {}, "");
  for (const char* host : {"evil.com", "evil.com:8080", "127.0.0.1.evil.com", "localhost:80x",
                           "[::1", "[::1]x", "192.168.1.2:8080", ""}) {
    const AccessVerdict v = policy.judge(withHost(host));
    EXPECT_EQ(v.status, 403) << host;
    EXPECT_NE(v.message.find("--allow-host"), std::string::npos) << v.message;
  }
}

TEST(HttpAccess, AllowHostAddsANameWithAnyPortOrOne) {
  const AccessPolicy policy("127.0.0.1", 8080, {"Heapbox.internal", "proxy:443"}, "");
  EXPECT_TRUE(policy.judge(withHost("heapbox.internal")).allowed());
  EXPECT_TRUE(policy.judge(withHost("heapbox.internal:8080")).allowed());
  EXPECT_TRUE(policy.judge(withHost("proxy:443")).allowed());
  EXPECT_FALSE(policy.judge(withHost("proxy:444")).allowed());
  EXPECT_FALSE(policy.judge(withHost("other.internal")).allowed());
}

TEST(HttpAccess, TheBoundAddressIsAllowed) {
  const AccessPolicy policy("::1", 8080, {}, "");
  EXPECT_TRUE(policy.judge(withHost("[::1]:8080")).allowed());
}

TEST(HttpAccess, Http11WithoutHostIsABadRequest) {
  const AccessPolicy policy("127.0.0.1", 8080, {}, "");
  RequestCredentials c;
  EXPECT_EQ(policy.judge(c).status, 400);
  c.http11 = false;
  EXPECT_TRUE(policy.judge(c).allowed());  // HTTP/1.0 had no Host
}

TEST(HttpAccess, TokenServerWantsTheTokenInTheQueryOrTheCookie) {
  const std::string token = "0123456789abcdef0123456789abcdef";
  const AccessPolicy policy("0.0.0.0", 8080, {}, token);
  RequestCredentials c = withHost("192.168.1.2:8080");  // any Host: the token guards
  EXPECT_EQ(policy.judge(c).status, 403);

  c.query_token = token;
  const AccessVerdict by_query = policy.judge(c);
  EXPECT_TRUE(by_query.allowed());
  EXPECT_EQ(by_query.set_cookie,
            "goheap_token_8080=" + token + "; Path=/; HttpOnly; SameSite=Strict");

  c.query_token.reset();
  const std::string cookie = "other=1; goheap_token_8080=" + token;
  c.cookie_header = cookie;
  const AccessVerdict by_cookie = policy.judge(c);
  EXPECT_TRUE(by_cookie.allowed());
  EXPECT_TRUE(by_cookie.set_cookie.empty());

  const std::string wrong = "goheap_token_8080=" + token.substr(1) + "0";
  c.cookie_header = wrong;
  EXPECT_EQ(policy.judge(c).status, 403);
  const std::string other_port = "goheap_token_8081=" + token;
  c.cookie_header = other_port;
  EXPECT_EQ(policy.judge(c).status, 403);
  c.cookie_header = {};
  c.query_token = "0123";
  EXPECT_EQ(policy.judge(c).status, 403);
}

// MCP clients send a server's token as a bearer token (--header).
TEST(HttpAccess, TokenServerTakesABearerToken) {
  const std::string token = "0123456789abcdef0123456789abcdef";
  const AccessPolicy policy("0.0.0.0", 8080, {}, token);
  RequestCredentials c = withHost("192.168.1.2:8080");
  c.bearer_token = token;
  const AccessVerdict ok = policy.judge(c);
  EXPECT_TRUE(ok.allowed());
  EXPECT_TRUE(ok.set_cookie.empty());
  c.bearer_token = token.substr(1) + "0";
  const AccessVerdict wrong = policy.judge(c);
  EXPECT_EQ(wrong.status, 403);
  EXPECT_NE(wrong.message.find("wrong access token"), std::string::npos);
}

TEST(HttpAccess, TokensAre128RandomBitsInHex) {
  std::set<std::string> seen;
  for (int i = 0; i < 20; i++) {
    Expected<std::string> t = newAccessToken();
    ASSERT_TRUE(t) << t.error().message();
    EXPECT_EQ(t->size(), 32u);
    EXPECT_EQ(t->find_first_not_of("0123456789abcdef"), std::string::npos) << *t;
    seen.insert(*t);
  }
  EXPECT_EQ(seen.size(), 20u);
}

TEST(HttpAccess, ConstantTimeEqualsComparesWholeStrings) {
  EXPECT_TRUE(constantTimeEquals("abc", "abc"));
  EXPECT_FALSE(constantTimeEquals("abc", "abd"));
  EXPECT_FALSE(constantTimeEquals("abc", "ab"));
  EXPECT_TRUE(constantTimeEquals("", ""));
}

TEST(HttpAccess, CookieValueFindsTheNamedCookie) {
  EXPECT_EQ(cookieValue("a=1; b=2;c=3", "b"), "2");
  EXPECT_EQ(cookieValue("a=1; b=2;c=3", "c"), "3");
  EXPECT_FALSE(cookieValue("ab=1", "a"));
  EXPECT_FALSE(cookieValue("", "a"));
}

}  // namespace
}  // namespace goheap::serve
