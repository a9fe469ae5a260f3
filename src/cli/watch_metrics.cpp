#include "cli/watch_metrics.h"

#include <cstdio>
#include <optional>

#include "model/process_memory.h"
#include "questions/typed_questions.h"
#include "serve/url.h"

namespace goheap::cli {

WatchMetrics watchMetricsOf(const query::Session& session, uint64_t top_types) {
  WatchMetrics m;
  questions::TopQuery top;
  top.by = "type";
  top.sort = "retained";
  top.limit = top_types;
  for (const analysis::HistogramRow& row : questions::queryTop(session, top).histogram.rows) {
    m.types.push_back({row.name, row.retained, row.count});
  }
  const analysis::Summary summary = questions::querySummary(session, {.top = 0});
  m.reachable_bytes = summary.reachable_bytes;
  m.goroutines = summary.goroutines;
  m.goroutines_leaked = summary.leaked_goroutines;
  const model::ProcessMemory& memory = summary.process_memory.memory;
  for (size_t c = 0; c < model::kMemoryCategoryCount; c++) {
    if (!memory.categories[c].known) continue;
    m.memory.emplace_back(
        std::string(model::memoryCategoryName(static_cast<model::MemoryCategory>(c))),
        memory.categories[c].bytes);
  }
  return m;
}

std::string prometheusLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void sample(std::string& out, std::string_view name, std::string_view label,
            std::string_view label_value, const std::string& value) {
  out += name;
  if (!label.empty()) {
    out += '{';
    out += label;
    out += "=\"";
    out += prometheusLabelValue(label_value);
    out += "\"}";
  }
  out += ' ';
  out += value;
  out += '\n';
}

void sample(std::string& out, std::string_view name, uint64_t value) {
  sample(out, name, {}, {}, std::to_string(value));
}

}  // namespace

std::string prometheusText(const WatchMetrics* m) {
  std::string out;
  family(out, "goheap_snaps_total", "counter", "Snaps goheap watch has taken of the process.");
  sample(out, "goheap_snaps_total", m == nullptr ? 0 : m->snaps_total);
  if (m == nullptr) return out;
  family(out, "goheap_type_retained_bytes", "gauge",
         "Bytes the objects of a Go type retain, in the latest snap (goheap top --by type).");
  for (const WatchMetrics::TypeRow& t : m->types) {
    sample(out, "goheap_type_retained_bytes", "type", t.type, std::to_string(t.retained_bytes));
  }
  family(out, "goheap_type_objects", "gauge",
         "Reachable objects of a Go type, in the latest snap.");
  for (const WatchMetrics::TypeRow& t : m->types) {
    sample(out, "goheap_type_objects", "type", t.type, std::to_string(t.objects));
  }
  family(out, "goheap_heap_reachable_bytes", "gauge",
         "Bytes of the heap's reachable objects, in the latest snap.");
  sample(out, "goheap_heap_reachable_bytes", m->reachable_bytes);
  family(out, "goheap_goroutines", "gauge", "Goroutines, in the latest snap.");
  sample(out, "goheap_goroutines", m->goroutines);
  family(out, "goheap_goroutines_leaked", "gauge",
         "Goroutines blocked forever (goheap goroutines --leaked), in the latest snap.");
  sample(out, "goheap_goroutines_leaked", m->goroutines_leaked);
  family(out, "goheap_process_memory_bytes", "gauge",
         "Where the process's mapped memory is, by the categories of goheap memory.");
  for (const auto& [category, bytes] : m->memory) {
    sample(out, "goheap_process_memory_bytes", "category", category, std::to_string(bytes));
  }
  family(out, "goheap_snap_pause_seconds", "gauge", "How long the latest snap paused the process.");
  char pause[32];
  std::snprintf(pause, sizeof pause, "%.6f", m->pause_seconds);
  sample(out, "goheap_snap_pause_seconds", {}, {}, pause);
  return out;
}

struct MetricsServer::State final : serve::HttpHandler {
  std::unique_ptr<serve::HttpServer> http;
  std::optional<serve::AccessPolicy> access;
  serve::HostPort where;
  mutable std::mutex mutex;
  std::shared_ptr<const std::string> exposition;

  std::variant<serve::HttpResponse, Job> route(const serve::HttpRequest& request) override {
    serve::RequestCredentials credentials;
    if (request.host) credentials.host = *request.host;
    credentials.http11 = request.http11;
    if (std::string_view auth = request.authorization; auth.starts_with("Bearer ")) {
      credentials.bearer_token = auth.substr(7);
    }
    const serve::AccessVerdict verdict = access->judge(credentials);
    if (!verdict.allowed()) {
      return serve::HttpResponse::of(verdict.status, "text/plain; charset=utf-8",
                                     verdict.message + "\n");
    }
    const std::string path = request.target.substr(0, request.target.find('?'));
    if (path != "/metrics") {
      return serve::HttpResponse::of(404, "text/plain; charset=utf-8",
                                     "not found: " + path + " (goheap watch serves /metrics)\n");
    }
    if (request.method != "GET" && request.method != "HEAD") {
      serve::HttpResponse r =
          serve::HttpResponse::of(405, "text/plain; charset=utf-8", "only GET /metrics\n");
      r.headers.emplace_back("Allow", "GET, HEAD");
      return r;
    }
    std::lock_guard lock(mutex);
    return serve::HttpResponse::shared(200, "text/plain; version=0.0.4; charset=utf-8", exposition);
  }

  serve::HttpResponse refusal(int status, std::string_view, const std::string& why) override {
    return serve::HttpResponse::of(status, "text/plain; charset=utf-8", why + "\n");
  }
};

MetricsServer::MetricsServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

MetricsServer::~MetricsServer() {
  if (state_->http) state_->http->stop();
}

Expected<std::unique_ptr<MetricsServer>> MetricsServer::start(const serve::HostPort& where,
                                                              bool allow_remote) {
  auto state = std::make_unique<State>();
  std::string token;
  if (allow_remote) {
    GOHEAP_TRY(token, serve::newAccessToken());
  }
  serve::HttpLimits limits;
  limits.worker_threads = 1;  // every answer is ready: nothing runs on the pool
  limits.max_connections = 64;
  GOHEAP_TRY(state->http, serve::HttpServer::listen(where.host, where.port, limits));
  state->where = {where.host, state->http->port()};
  state->access.emplace(where.host, state->where.port, std::vector<std::string>{},
                        std::move(token));
  state->exposition = std::make_shared<const std::string>(prometheusText(nullptr));
  state->http->start(*state);
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(state)));
}

void MetricsServer::publish(std::string exposition) {
  auto text = std::make_shared<const std::string>(std::move(exposition));
  std::lock_guard lock(state_->mutex);
  state_->exposition = std::move(text);
}

std::string MetricsServer::url() const {
  return serve::urlOf(state_->where) + "metrics";
}

const std::string& MetricsServer::token() const {
  return state_->access->token();
}

}  // namespace goheap::cli
