// The HTTP server behind `goheap serve`: a JSON API over one heap dump
// (docs/web-api.md) and the web pages compiled into the binary. It listens
// as soon as it starts and loads the dump in a thread of its own, answering
// /api/status meanwhile; once loaded the Snapshot is only read, so requests
// are answered concurrently. The HTTP itself (deadlines, limits, the worker
// pool) is http_server.h's; who may ask is access.h's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "query/open.h"
#include "query/session.h"
#include "serve/http_server.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::serve {

struct HostPort {
  std::string host;  // "127.0.0.1", "::1" (without brackets)
  uint16_t port = 0;
};
// "127.0.0.1:8080", "localhost:0", "[::1]:8080". Port 0 asks for a free one.
// `flag` names the flag in the error.
Expected<HostPort> parseHostPort(std::string_view text, std::string_view flag = "--http");
// "127.0.0.1:8080", "[::1]:8080": brackets around an IPv6 host.
std::string hostAndPort(const HostPort& where);
// "http://127.0.0.1:8080/".
std::string urlOf(const HostPort& where);

struct ServeOptions {
  // Listen on an address beyond loopback (--allow-remote). Every request
  // must then carry the access token the server makes (url() shows it).
  bool allow_remote = false;
  // Names the Host header may give besides the loopback ones and the
  // address bound (--allow-host); "name" with any port, "name:port" that one.
  std::vector<std::string> allowed_hosts;
  // The bytes the kept answers may take (--answer-cache; query::Session's
  // memo); 0 keeps none.
  uint64_t answer_cache_bytes = uint64_t{256} << 20;
  // How the heaps are opened (the index cache: --cache, --no-cache,
  // --cache-size); its answer_cache_bytes is the one above.
  query::OpenOptions open;
  HttpLimits limits;
  // /api/sql: each statement's time limit (--sql-timeout) and the rows an
  // answer holds at most (a request's `limit` may ask for fewer).
  double sql_seconds = 30;
  uint64_t sql_max_rows = 10000;
  // What SQLite may allocate for all /api/sql requests together
  // (--sql-memory; sql::limitSqlMemory); 0: no limit.
  uint64_t sql_memory_bytes = uint64_t{1} << 30;
};

// Why goheap serve will not listen on `host`: an address beyond loopback
// without `allow_remote` (anyone who reaches it could read the dump).
Status checkListenAddress(const HostPort& where, bool allow_remote);

class Server {
 public:
  // Binds `where` (port 0: any free port) and starts answering; the API
  // endpoints answer 503 until the dump is loaded or given.
  static Expected<std::unique_ptr<Server>> start(const HostPort& where,
                                                 const ServeOptions& options = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Loads the heap (and the executable, when `exe_path` is not empty) in a
  // background thread, as the analysis commands load it. `on_loaded` (may be
  // empty) runs in that thread once loading ends, with the load error if
  // any. Its phases become /api/status's; its warnings and notes about the
  // heap or executable are told to `told`, from that thread, which must
  // outlive the server.
  void loadInBackground(std::string heap_path, std::string exe_path, Sink& told = nullSink(),
                        std::function<void(const Error* failure)> on_loaded = {});
  // The same for any source: a running process (`--pid`), a URL.
  void loadInBackground(query::Source source, Sink& told = nullSink(),
                        std::function<void(const Error* failure)> on_loaded = {});
  // Call before loadInBackground: loads OLD (`goheap serve --base OLD`) in
  // the same background load, with the same executable, for /api/diff.
  void setBase(std::string base_path);

  // Serves a heap opened by the caller.
  void serve(std::shared_ptr<const query::Session> session);

  // Where it listens, with the port it actually got.
  const HostPort& where() const;
  // What to open in a browser: urlOf(where()), with ?token= when there is
  // an access token.
  std::string url() const;
  // The access token every request must carry; empty on loopback.
  const std::string& accessToken() const;

  // Blocks until stop() is called (by another thread).
  void wait();
  // Stops listening, drops the connections (the analyses under way finish
  // first) and waits for the loading thread. Safe to call more than once.
  void stop();

 private:
  struct State;
  explicit Server(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace goheap::serve
