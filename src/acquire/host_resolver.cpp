#include "acquire/host_resolver.h"

#include <optional>

#include "util/host_names.h"

namespace goheap::acquire {

using tcp = boost::asio::ip::tcp;

Expected<std::vector<tcp::endpoint>> resolveHost(boost::asio::io_context& ioc,
                                                 const std::string& host, uint16_t port,
                                                 bool passive) {
  std::vector<tcp::endpoint> endpoints;
  if (const std::optional<std::vector<std::string>> known = addressesWithoutResolver(host)) {
    for (const std::string& address : *known) {
      boost::system::error_code ec;
      const boost::asio::ip::address parsed = boost::asio::ip::make_address(address, ec);
      if (!ec) endpoints.emplace_back(parsed, port);
    }
    return endpoints;
  }
  tcp::resolver resolver(ioc);
  boost::system::error_code ec;
  const auto flags = passive ? tcp::resolver::passive | tcp::resolver::numeric_service
                             : tcp::resolver::numeric_service;
  const tcp::resolver::results_type found = resolver.resolve(host, std::to_string(port), flags, ec);
  if (ec) return Error::io(ec.message());
  for (const auto& entry : found) endpoints.push_back(entry.endpoint());
  if (endpoints.empty()) return Error("no address");
  return endpoints;
}

}  // namespace goheap::acquire
