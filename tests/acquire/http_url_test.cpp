// Splitting the URLs goheap downloads heaps from, and resolving redirects.
#include "acquire/http_url.h"

#include <gtest/gtest.h>

namespace goheap::acquire {
namespace {

TEST(HttpUrl, SplitsHostPortAndTarget) {
  Expected<HttpUrl> u = parseHttpUrl("http://127.0.0.1:6060/debug/heapdump?gc=1#top");
  ASSERT_TRUE(u) << u.error().message();
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 6060);
  EXPECT_EQ(u->target, "/debug/heapdump?gc=1");  // the fragment is never sent
  EXPECT_EQ(u->hostHeader(), "127.0.0.1:6060");
  EXPECT_EQ(u->text(), "http://127.0.0.1:6060/debug/heapdump?gc=1");
}

TEST(HttpUrl, DefaultsToPort80AndTheRootPath) {
  Expected<HttpUrl> u = parseHttpUrl("http://heaps.internal");
  ASSERT_TRUE(u) << u.error().message();
  EXPECT_EQ(u->host, "heaps.internal");
  EXPECT_EQ(u->port, 80);
  EXPECT_EQ(u->target, "/");
  EXPECT_EQ(u->hostHeader(), "heaps.internal");

  Expected<HttpUrl> q = parseHttpUrl("HTTP://host:8080?gc=1");
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(q->target, "/?gc=1");
  EXPECT_EQ(q->port, 8080);
}

TEST(HttpUrl, ReadsIPv6Literals) {
  Expected<HttpUrl> u = parseHttpUrl("http://[::1]:6060/x");
  ASSERT_TRUE(u) << u.error().message();
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 6060);
  EXPECT_EQ(u->hostHeader(), "[::1]:6060");
  Expected<HttpUrl> plain = parseHttpUrl("http://[fe80::1]/");
  ASSERT_TRUE(plain) << plain.error().message();
  EXPECT_EQ(plain->port, 80);
  EXPECT_EQ(plain->text(), "http://[fe80::1]/");
}

TEST(HttpUrl, RefusesWhatItCannotFetchWithAReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"https://host/debug/heapdump", "curl"},
      {"https://host/debug/heapdump", "ssh -L"},
      {"ftp://host/x", "not an http:// URL"},
      {"http://", "no host name"},
      {"http:///path", "no host name"},
      {"http://host:0/", "not a number from 1 to 65535"},
      {"http://host:65536/", "not a number from 1 to 65535"},
      {"http://host:http/", "not a number from 1 to 65535"},
      {"http://host:/", "not a number from 1 to 65535"},
      {"http://user:secret@host/", "credentials"},
      {"http://host/a b", "no spaces"},
      {"http://[::1/", "without its ']'"},
      {"http://[::1]x/", "after the IPv6 address"},
  };
  for (const auto& [url, why] : cases) {
    Expected<HttpUrl> u = parseHttpUrl(url);
    ASSERT_FALSE(u) << url;
    EXPECT_NE(u.error().message().find(why), std::string::npos)
        << url << ": " << u.error().message();
    EXPECT_TRUE(u.error().needsInput()) << url;
  }
}

TEST(HttpUrl, ResolvesRedirectLocations) {
  const HttpUrl base = *parseHttpUrl("http://127.0.0.1:6060/debug/heapdump?gc=1");
  const std::pair<const char*, const char*> cases[] = {
      {"http://other:7070/dump", "http://other:7070/dump"},
      {"//other/dump", "http://other/dump"},
      {"/admin/heapdump", "http://127.0.0.1:6060/admin/heapdump"},
      {"heapdump2?gc=0", "http://127.0.0.1:6060/debug/heapdump2?gc=0"},
  };
  for (const auto& [location, want] : cases) {
    Expected<HttpUrl> u = resolveLocation(base, location);
    ASSERT_TRUE(u) << location << ": " << u.error().message();
    EXPECT_EQ(u->text(), want) << location;
  }
  EXPECT_FALSE(resolveLocation(base, "https://host/dump"));
  EXPECT_FALSE(resolveLocation(base, ""));
}

}  // namespace
}  // namespace goheap::acquire
