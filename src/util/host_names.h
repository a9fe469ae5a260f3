// Host names goheap resolves itself. A static build's glibc resolves names
// only through NSS modules it loads at run time, which a scratch or
// distroless container does not have, and without /etc/hosts not even
// "localhost" resolves; so `serve`, `watch --metrics` and the downloads turn
// the names every machine has into addresses before asking the resolver.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace goheap {

// The addresses `host` stands for without a resolver, in the order to try:
// an IPv4 or IPv6 literal (brackets allowed) is itself, "localhost" (any
// case, with or without the final dot) is 127.0.0.1 then ::1. nullopt for a
// name only a resolver knows.
std::optional<std::vector<std::string>> addressesWithoutResolver(std::string_view host);

}  // namespace goheap
