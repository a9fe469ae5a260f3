#include "acquire/http_url.h"

#include <arpa/inet.h>

#include <charconv>

#include "util/text.h"

namespace goheap::acquire {

namespace {

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); i++) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

// Every refusal is the user's to fix, by giving another URL.
Error badUrl(std::string_view why) {
  return Error::needsInput(std::string(why));
}

}  // namespace

bool isLoopbackHost(std::string_view host) {
  const std::string name = asciiLowerCase(host);
  if (name == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, name.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, name.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::string HttpUrl::text() const {
  std::string out = "http://";
  out.append(hostHeader()).append(target);
  return out;
}

std::string HttpUrl::hostHeader() const {
  std::string out;
  if (host.find(':') != std::string::npos) {
    out.append("[").append(host).append("]");  // an IPv6 address
  } else {
    out = host;
  }
  if (port != 80) out.append(":").append(std::to_string(port));
  return out;
}

Expected<HttpUrl> parseHttpUrl(std::string_view url) {
  if (startsWithNoCase(url, "https://")) {
    return badUrl(
        "goheap reads http:// URLs only, not https://; download the dump first "
        "(curl -o heap.dump URL) and give the file, or reach the service's plain "
        "HTTP listener through an SSH tunnel (ssh -L 6060:127.0.0.1:6060 HOST, then "
        "http://127.0.0.1:6060/debug/heapdump)");
  }
  if (!startsWithNoCase(url, "http://")) return badUrl("not an http:// URL");
  for (const char c : url) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return badUrl("a URL has no spaces or control characters (write a space as %20)");
    }
  }
  std::string_view rest = url.substr(7);
  if (const size_t hash = rest.find('#'); hash != std::string_view::npos) {
    rest = rest.substr(0, hash);  // the fragment is the client's, never sent
  }
  const size_t path_at = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_at);
  std::string_view target = path_at == std::string_view::npos ? "" : rest.substr(path_at);
  if (authority.find('@') != std::string_view::npos) {
    return badUrl("credentials in the URL (user@host) are not supported");
  }

  HttpUrl out;
  std::string_view host_port = authority;  // what follows the host: "" or ":PORT"
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return badUrl("an IPv6 address without its ']'");
    out.host = std::string(authority.substr(1, close - 1));
    host_port = authority.substr(close + 1);
  } else {
    const size_t colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    host_port = colon == std::string_view::npos ? "" : authority.substr(colon);
  }
  if (out.host.empty()) return badUrl("no host name");
  if (!host_port.empty() && !host_port.starts_with(':')) {
    return badUrl("something other than :PORT after the IPv6 address");
  }
  if (!host_port.empty()) {
    const std::string_view port_text = host_port.substr(1);
    unsigned port = 0;
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 ||
        port > 65535) {
      std::string why = "the port ";
      why.append(port_text).append(" is not a number from 1 to 65535");
      return badUrl(why);
    }
    out.port = static_cast<uint16_t>(port);
  }
  // "http://host?q" asks for "/?q".
  if (target.empty() || target.starts_with('?')) out.target.push_back('/');
  out.target.append(target);
  return out;
}

Expected<HttpUrl> resolveLocation(const HttpUrl& base, std::string_view location) {
  if (location.empty()) return Error("a redirect without a Location");
  if (startsWithNoCase(location, "http://") || startsWithNoCase(location, "https://")) {
    return parseHttpUrl(location);
  }
  if (location.starts_with("//")) {
    std::string absolute = "http:";
    absolute.append(location);
    return parseHttpUrl(absolute);
  }
  // A path on the same server: absolute, or relative to the directory of
  // base's path. Parsed as a whole URL so that it is checked the same way.
  std::string path;
  if (location.starts_with('/')) {
    path = std::string(location);
  } else {
    const std::string_view base_path =
        std::string_view(base.target).substr(0, base.target.find('?'));
    path = std::string(base_path.substr(0, base_path.rfind('/') + 1));
    path.append(location);
  }
  HttpUrl on_base = base;
  on_base.target.clear();
  std::string absolute = on_base.text();
  absolute.append(path);
  return parseHttpUrl(absolute);
}

}  // namespace goheap::acquire
