// Who may read the heap through goheap serve. The API shows everything in
// the dump (strings, keys, tokens), so:
//  - on a loopback address, only requests whose Host header names this
//    machine (localhost, 127.x.x.x, [::1], the address bound, or a name
//    given with --allow-host) are answered: a web page on another site that
//    rebinds its DNS name to 127.0.0.1 sends its own name and is refused;
//  - beyond loopback (--allow-remote), every request must carry a random
//    access token, in the query (?token=) or in the cookie set when a page
//    was opened with it, as Jupyter does. The token is the guard there, so
//    the Host check is skipped (a LAN name or address is expected).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "acquire/http_url.h"
#include "util/error.h"

namespace goheap::serve {

// What --http may bind without --allow-remote (acquire/http_url.h).
using acquire::isLoopbackHost;

// 128 random bits from getrandom(2), as 32 hex digits.
Expected<std::string> newAccessToken();

// Equal, in a time that depends only on the lengths (a wrong token must not
// tell by its timing how many of its first characters were right).
bool constantTimeEquals(std::string_view a, std::string_view b);

// The value of cookie `name` in a Cookie header ("a=1; b=2"), if present.
std::optional<std::string_view> cookieValue(std::string_view cookie_header, std::string_view name);

// What a request says about itself that the policy judges.
struct RequestCredentials {
  std::optional<std::string_view> host;         // the Host header; nothing when absent
  bool http11 = true;                           // HTTP/1.1 requires Host
  std::optional<std::string_view> query_token;  // ?token=
  std::string_view cookie_header;               // "" when absent
  // Authorization: Bearer TOKEN, as MCP clients send a server's token.
  std::optional<std::string_view> bearer_token;
};

struct AccessVerdict {
  int status = 200;     // 200, or 400 / 403 to answer instead
  std::string message;  // why, when refused
  // With a valid ?token=, the Set-Cookie header value that lets the page's
  // own later requests in without it.
  std::string set_cookie;
  bool allowed() const { return status == 200; }
};

class AccessPolicy {
 public:
  // `bound_host` is the address listened on (without brackets); `port` the
  // port got; `extra_hosts` the --allow-host names; `token` empty unless
  // listening beyond loopback.
  AccessPolicy(std::string bound_host, uint16_t port, std::vector<std::string> extra_hosts,
               std::string token);

  AccessVerdict judge(const RequestCredentials& request) const;

  const std::string& token() const { return token_; }
  // Per port: browsers share cookies between the ports of one host, and two
  // goheap servers on one machine must not overwrite each other's token.
  const std::string& cookieName() const { return cookie_name_; }

 private:
  bool hostAllowed(std::string_view host) const;

  std::string bound_host_;
  std::vector<std::string> extra_hosts_;  // lower case
  std::string token_;
  std::string cookie_name_;
};

}  // namespace goheap::serve
