// Host names to TCP endpoints, for `serve` (listening) and the downloads
// (connecting): "localhost" and IP literals are turned into addresses here
// (util/host_names.h), so that a static build resolves them with no NSS
// module and no /etc/hosts; any other name goes to the system's resolver.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "util/error.h"

namespace goheap::acquire {

// The endpoints of `host` and `port`, in the order to try; `passive` for a
// listening socket. An Error says why the name did not resolve.
Expected<std::vector<boost::asio::ip::tcp::endpoint>> resolveHost(boost::asio::io_context& ioc,
                                                                  const std::string& host,
                                                                  uint16_t port, bool passive);

}  // namespace goheap::acquire
