#include "serve/access.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/format.h"
#include "util/text.h"

namespace goheap::serve {

namespace {

// The name in a Host header without its port: "[::1]:8080" -> "::1",
// "localhost:80" -> "localhost". Nothing when the port is not digits or
// the brackets do not close.
std::optional<std::string_view> hostName(std::string_view host) {
  std::string_view port;
  if (host.starts_with('[')) {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view after = host.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
    }
    host = host.substr(1, close - 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return host;
}

}  // namespace

Expected<std::string> newAccessToken() {
  unsigned char bits[16];
  size_t got = 0;
  while (got < sizeof bits) {
    const ssize_t n = ::getrandom(bits + got, sizeof bits - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::io(std::string("cannot make an access token: getrandom: ") +
                       std::strerror(errno));
    }
    got += static_cast<size_t>(n);
  }
  return formatHexBytes(bits);
}

bool constantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char differ = 0;
  for (size_t i = 0; i < a.size(); i++) {
    differ |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return differ == 0;
}

std::optional<std::string_view> cookieValue(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const size_t semi = header.find(';');
    std::string_view pair = header.substr(0, semi);
    header = semi == std::string_view::npos ? std::string_view() : header.substr(semi + 1);
    while (pair.starts_with(' ') || pair.starts_with('\t')) pair.remove_prefix(1);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) return pair.substr(eq + 1);
  }
  return std::nullopt;
}

AccessPolicy::AccessPolicy(std::string bound_host, uint16_t port,
                           std::vector<std::string> extra_hosts, std::string token)
    : bound_host_(asciiLowerCase(bound_host)),
      token_(std::move(token)),
      cookie_name_("goheap_token_" + std::to_string(port)) {
  for (const std::string& h : extra_hosts) extra_hosts_.push_back(asciiLowerCase(h));
}

bool AccessPolicy::hostAllowed(std::string_view host) const {
  const std::string whole = asciiLowerCase(host);
  // --allow-host NAME matches with any port, NAME:PORT only that port.
  for (const std::string& extra : extra_hosts_) {
    if (whole == extra) return true;
  }
  const std::optional<std::string_view> name = hostName(whole);
  if (!name) return false;
  if (isLoopbackHost(*name) || *name == bound_host_) return true;
  return std::find(extra_hosts_.begin(), extra_hosts_.end(), *name) != extra_hosts_.end();
}

AccessVerdict AccessPolicy::judge(const RequestCredentials& request) const {
  AccessVerdict v;
  if (!request.host && request.http11) {
    v.status = 400;
    v.message = "an HTTP/1.1 request needs a Host header";
    return v;
  }
  if (token_.empty()) {
    // Loopback only: the Host header must name this machine. HTTP/1.0
    // without Host comes from a tool, not a browser (browsers always send it).
    if (request.host && !hostAllowed(*request.host)) {
      v.status = 403;
      v.message = "Host \"" + std::string(*request.host) +
                  "\" is not this machine's; goheap serve answers requests for localhost, "
                  "127.0.0.1 and [::1] (start it with --allow-host NAME to add a name)";
    }
    return v;
  }
  if (request.query_token && constantTimeEquals(*request.query_token, token_)) {
    v.set_cookie = cookie_name_ + "=" + token_ + "; Path=/; HttpOnly; SameSite=Strict";
    return v;
  }
  const std::optional<std::string_view> cookie = cookieValue(request.cookie_header, cookie_name_);
  if (cookie && constantTimeEquals(*cookie, token_)) return v;
  if (request.bearer_token && constantTimeEquals(*request.bearer_token, token_)) return v;
  v.status = 403;
  v.message = request.query_token || cookie || request.bearer_token
                  ? "wrong access token: open the URL goheap serve printed (with ?token=)"
                  : "this server wants its access token: open the URL goheap serve printed "
                    "(with ?token=), add token=... to the query, or send the header "
                    "Authorization: Bearer TOKEN";
  return v;
}

}  // namespace goheap::serve
