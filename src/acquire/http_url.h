// The parts of an http:// URL goheap downloads a heap from, and how a
// redirect's Location resolves against it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/error.h"

namespace goheap::acquire {

struct HttpUrl {
  std::string host;  // a name, an IPv4 address, or an IPv6 one without its brackets
  uint16_t port = 80;
  std::string target;  // the path and query, "/" at least; never the fragment

  // "http://host:port/target", the port only when not 80.
  std::string text() const;
  // The Host header: "host", "host:port", "[::1]:port".
  std::string hostHeader() const;
};

// Splits "http://host[:port][/path][?query][#fragment]". https:// and any
// other scheme, credentials ("user@"), a port outside 1 to 65535, spaces and
// control characters are refused with the reason alone, for the caller to
// put after the URL (an Error::needsInput: the user gives another URL).
Expected<HttpUrl> parseHttpUrl(std::string_view url);

// localhost, a 127.x.x.x address or ::1 (no DNS asked: "localhost" is
// loopback by RFC 6761).
bool isLoopbackHost(std::string_view host);

// The URL a redirect's Location names, from the request to `base`: an
// absolute URL, one without the scheme ("//host/path"), an absolute path or
// a path relative to base's.
Expected<HttpUrl> resolveLocation(const HttpUrl& base, std::string_view location);

}  // namespace goheap::acquire
