// What goheap watch --metrics serves: the latest snap's answers in
// Prometheus's text exposition format (version 0.0.4) at /metrics, for
// Prometheus to scrape; federation or remote write carry them on from
// there. The numbers come from the questions' own code (top, summary,
// memory), so they are what `goheap top --by type`, `summary` and
// `memory` say of the same core.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "query/session.h"
#include "serve/access.h"
#include "serve/http_server.h"
#include "serve/server.h"
#include "util/error.h"

namespace goheap::cli {

struct WatchMetrics {
  struct TypeRow {
    std::string type;
    uint64_t retained_bytes = 0, objects = 0;
  };
  std::vector<TypeRow> types;  // biggest retained first
  uint64_t reachable_bytes = 0, goroutines = 0, goroutines_leaked = 0;
  // `goheap memory`'s categories ("heap_objects", ...) and their bytes; the
  // categories the source cannot know are left out.
  std::vector<std::pair<std::string, uint64_t>> memory;
  double pause_seconds = 0;
  uint64_t snaps_total = 0;
};

// The metrics of one snap's heap: the top `top_types` types by retained
// bytes (as `goheap top --by type`), the summary's counts, the memory
// categories.
WatchMetrics watchMetricsOf(const query::Session& session, uint64_t top_types);

// A label value as the exposition format writes it: backslash, double quote
// and newline escaped.
std::string prometheusLabelValue(std::string_view value);

// The exposition text: HELP and TYPE lines, then the samples (all gauges
// but goheap_snaps_total, a counter). Before the first snap, `metrics` is
// null and only goheap_snaps_total (0) is written.
std::string prometheusText(const WatchMetrics* metrics);

// The HTTP server of --metrics: GET /metrics, nothing else. On loopback it
// answers requests whose Host names this machine (serve's AccessPolicy);
// beyond, with --allow-remote, only those carrying the access token as
// "Authorization: Bearer TOKEN" (Prometheus's `authorization` setting).
class MetricsServer {
 public:
  // Listens on `where`; `allow_remote` makes an access token (token()).
  static Expected<std::unique_ptr<MetricsServer>> start(const serve::HostPort& where,
                                                        bool allow_remote);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // What /metrics answers from now on.
  void publish(std::string exposition);
  // "http://127.0.0.1:9100/metrics", with the port got.
  std::string url() const;
  const std::string& token() const;

 private:
  struct State;
  explicit MetricsServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace goheap::cli
