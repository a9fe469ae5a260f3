#include "util/host_names.h"

#include <arpa/inet.h>

#include <cctype>

namespace goheap {

namespace {

bool isLiteral(int family, const std::string& text) {
  unsigned char buffer[sizeof(in6_addr)];
  return ::inet_pton(family, text.c_str(), buffer) == 1;
}

bool isLocalhost(std::string_view host) {
  if (host.ends_with('.')) host.remove_suffix(1);
  constexpr std::string_view kLocalhost = "localhost";
  if (host.size() != kLocalhost.size()) return false;
  for (size_t i = 0; i < host.size(); i++) {
    if (std::tolower(static_cast<unsigned char>(host[i])) != kLocalhost[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<std::string>> addressesWithoutResolver(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (isLocalhost(host)) return std::vector<std::string>{"127.0.0.1", "::1"};
  const std::string text(host);
  if (isLiteral(AF_INET, text) || isLiteral(AF_INET6, text)) {
    return std::vector<std::string>{text};
  }
  return std::nullopt;
}

}  // namespace goheap
