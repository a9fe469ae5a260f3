#include "serve/server.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <thread>

#include "analysis/queries.h"
#include "cli/json_render.h"
#include "serve/access.h"
#include "serve/answer_cache.h"
#include "serve/url.h"
#include "serve/web_assets.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace goheap::serve {

namespace {

constexpr const char* kJson = "application/json";
constexpr const char* kText = "text/plain; charset=utf-8";

HttpResponse jsonAnswer(std::string body) {
  return HttpResponse::of(200, kJson, std::move(body));
}

HttpResponse apiError(int status, const std::string& message) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject().field("error", message).endObject();
  return HttpResponse::of(status, kJson, std::move(out));
}

// An error for `path`: JSON under /api/ (where a client expects JSON) and
// when the path is not known, plain text for a page.
HttpResponse errorFor(std::string_view path, int status, const std::string& message) {
  if (path.empty() || path.starts_with("/api/")) return apiError(status, message);
  return HttpResponse::of(status, kText, message + "\n");
}

// The query parameters of one request, read with the CLI's own parsers
// (util/format.h) so "64K" or "0xc000..." mean the same in both. The first
// bad or unknown parameter is remembered and answered with 400. A name
// given twice counts with its first value.
class Params {
 public:
  Params(std::vector<std::pair<std::string, std::string>> query,
         std::span<const std::string_view> known)
      : query_(std::move(query)) {
    for (const auto& [name, value] : query_) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        fail("unknown parameter \"" + name +
             "\" (this endpoint takes: " + (known.empty() ? "none" : joined(known)) + ")");
      }
    }
  }

  const std::optional<std::string>& error() const { return error_; }

  bool has(std::string_view name) const { return find(name) != nullptr; }
  std::string text(std::string_view name, std::string fallback) const {
    const std::string* v = find(name);
    return v != nullptr ? *v : fallback;
  }
  std::string choice(std::string_view name, std::initializer_list<std::string_view> values,
                     std::string fallback) {
    std::string v = text(name, fallback);
    for (std::string_view allowed : values) {
      if (v == allowed) return v;
    }
    fail("bad value \"" + v + "\" for " + std::string(name) + ": one of " +
         joined({values.begin(), values.end()}));
    return fallback;
  }
  uint64_t number(std::string_view name, uint64_t fallback) {
    return parsed(name, fallback, parseUint);
  }
  uint64_t byteSize(std::string_view name, uint64_t fallback) {
    return parsed(name, fallback, parseByteSize);
  }
  uint64_t address(std::string_view name) { return parsed(name, 0, parseAddress); }
  bool flag(std::string_view name) {
    const std::string v = text(name, "false");
    if (v == "true" || v == "1" || v.empty()) return true;
    if (v == "false" || v == "0") return false;
    fail("bad value \"" + v + "\" for " + std::string(name) + ": true or false");
    return false;
  }
  void require(std::string_view name) {
    if (!has(name)) fail("missing parameter \"" + std::string(name) + "\"");
  }

 private:
  static std::string joined(std::span<const std::string_view> words) {
    std::string list;
    for (std::string_view w : words) list += (list.empty() ? "" : ", ") + std::string(w);
    return list;
  }
  const std::string* find(std::string_view name) const {
    for (const auto& [n, v] : query_) {
      if (n == name) return &v;
    }
    return nullptr;
  }
  uint64_t parsed(std::string_view name, uint64_t fallback,
                  Expected<uint64_t> (*parse)(std::string_view)) {
    const std::string* text = find(name);
    if (text == nullptr) return fallback;
    Expected<uint64_t> v = parse(*text);
    if (!v) {
      fail("bad value for " + std::string(name) + ": " + v.error().message());
      return fallback;
    }
    return *v;
  }
  void fail(std::string message) {
    if (!error_) error_ = std::move(message);
  }

  std::vector<std::pair<std::string, std::string>> query_;
  std::optional<std::string> error_;
};

// What a query helper's QueryError becomes.
HttpResponse queryError(const cli::QueryError& e) {
  return apiError(e.kind == cli::QueryError::Kind::NotFound ? 404 : 400, e.error.message());
}

}  // namespace

struct Server::State : HttpHandler {
  HostPort where;
  std::optional<AccessPolicy> access;  // set once the port is known
  std::unique_ptr<HttpServer> http;
  std::thread loader;
  std::once_flag stopped;
  // Set by stop(), for wait().
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool done = false;

  // Load progress, for /api/status; guarded by `mu`.
  std::mutex mu;
  std::string phase = "waiting";
  uint64_t phase_done = 0, phase_total = 0;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::optional<std::string> load_error;
  std::unique_ptr<analysis::Snapshot> owned;
  // Set once the Snapshot is complete and prepared for concurrent reads;
  // from then on it is never written.
  std::atomic<const analysis::Snapshot*> ready{nullptr};

  // The base dump (serve --base OLD) for /api/diff: its path is set before
  // loading starts, the Snapshot before `ready`, and neither changes after.
  std::string base_path;
  std::unique_ptr<analysis::Snapshot> base;
  // The new objects by holder, per grouping: the costly part of a diff,
  // the same for every sort, filter and page.
  std::mutex diff_mu;
  std::map<typing::GroupKind, std::shared_ptr<const analysis::NewSince>> new_since;

  // Answers that take seconds on a big heap (suspects, dups, waste, diff),
  // by endpoint and parsed parameters, within --answer-cache bytes.
  explicit State(uint64_t answer_cache_bytes) : answers(answer_cache_bytes) {}
  AnswerCache answers;

  // Each endpoint reads the same parameters as its CLI command, with the
  // same defaults, and renders with the command's own JSON function.
  using Endpoint = std::function<HttpResponse(const analysis::Snapshot&, Params&)>;
  struct Route {
    std::vector<std::string_view> params;  // the names it takes
    Endpoint answer;
  };
  std::map<std::string, Route, std::less<>> endpoints;
  void addEndpoints();

  std::variant<HttpResponse, Job> route(const HttpRequest& request) override;
  HttpResponse refusal(int status, std::string_view target, const std::string& why) override {
    return errorFor(target.substr(0, target.find('?')), status, why);
  }
  HttpResponse staticFile(const std::string& path) const;

  void setPhase(std::string name, uint64_t total) {
    std::lock_guard lock(mu);
    phase = std::move(name);
    phase_done = 0;
    phase_total = total;
  }

  // Why the answers cannot be trusted any more: the dump (or the base, or
  // an executable) changed on disk since it was mapped, or reading its
  // mapping faulted. Nothing while the files are as they were.
  std::optional<std::string> filesChanged(const analysis::Snapshot& snap) const {
    for (const analysis::Snapshot* s :
         {&snap, static_cast<const analysis::Snapshot*>(base.get())}) {
      if (s == nullptr) continue;
      if (Status st = s->checkFilesUnchanged(); !st) return st.error().message();
    }
    return std::nullopt;
  }
  static HttpResponse changedOnDisk(const std::string& why) {
    return apiError(409, "the dump changed on disk (" + why + "); restart goheap serve");
  }

  std::string statusJson() {
    const analysis::Snapshot* snap = ready.load();
    // A stat of each file: cheap enough for the I/O thread.
    const std::optional<std::string> changed = snap ? filesChanged(*snap) : std::nullopt;
    std::lock_guard lock(mu);
    std::string out;
    JsonWriter w(out, JsonWriter::Style::Pretty);
    w.beginObject();
    w.field("schema_version", 1);
    const bool is_ready = snap != nullptr;
    w.field("state", is_ready ? "ready" : load_error ? "failed" : "loading");
    w.field("phase", is_ready ? std::string("done") : phase);
    double fraction = 0;
    if (is_ready) {
      fraction = 1;
    } else if (phase_total > 0) {
      fraction =
          static_cast<double>(std::min(phase_done, phase_total)) / static_cast<double>(phase_total);
    }
    w.field("fraction", fraction);
    w.field("elapsed_seconds",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (load_error) w.field("error", *load_error);
    if (changed) w.field("files_changed", *changed);
    w.field("has_base", !base_path.empty());
    if (!base_path.empty()) {
      w.field("base_file", base_path).field("base_loaded", is_ready && base != nullptr);
    }
    w.endObject();
    return out;
  }

  void publish(std::unique_ptr<analysis::Snapshot> snap) {
    snap->prepareForConcurrentReads();
    const analysis::Snapshot* raw = snap.get();
    {
      std::lock_guard lock(mu);
      owned = std::move(snap);
    }
    ready.store(raw);
  }

  std::shared_ptr<const analysis::NewSince> newSinceBase(const analysis::Snapshot& snap,
                                                         typing::GroupKind by) {
    std::lock_guard lock(diff_mu);
    std::shared_ptr<const analysis::NewSince>& slot = new_since[by];
    if (!slot)
      slot = std::make_shared<const analysis::NewSince>(analysis::newSince(*base, snap, by));
    return slot;
  }

  // The answer kept for `key`, or `compute`'s, then kept. Two first
  // requests for one key may both compute it; the answer is the same. An
  // answer computed while the files changed is not kept.
  HttpResponse remembered(const analysis::Snapshot& snap, const AnswerKey& key,
                          const std::function<std::string()>& compute) {
    if (auto kept = answers.find(key.str())) return HttpResponse::shared(200, kJson, kept);
    auto body = std::make_shared<const std::string>(compute());
    if (!filesChanged(snap)) answers.insert(key.str(), body);
    return HttpResponse::shared(200, kJson, std::move(body));
  }
};

std::variant<HttpResponse, HttpHandler::Job> Server::State::route(const HttpRequest& request) {
  Expected<Target> target = parseTarget(request.target);
  if (!target)
    return errorFor(request.target.substr(0, request.target.find('?')), 400,
                    "malformed request target: " + target.error().message());
  const std::string& path = target->path;

  // Who may ask first: the Host header and, beyond loopback, the token.
  RequestCredentials credentials;
  if (request.host) credentials.host = *request.host;
  credentials.http11 = request.http11;
  credentials.cookie_header = request.cookie;
  std::vector<std::pair<std::string, std::string>> query;
  for (auto& [name, value] : target->query) {
    // The token is the server's, never an endpoint's parameter.
    if (name == "token") {
      if (!credentials.query_token) credentials.query_token = value;
    } else {
      query.emplace_back(name, value);
    }
  }
  const AccessVerdict verdict = access->judge(credentials);
  if (!verdict.allowed()) return errorFor(path, verdict.status, verdict.message);
  auto withCookie = [set_cookie = verdict.set_cookie](HttpResponse r) {
    if (!set_cookie.empty()) r.headers.emplace_back("Set-Cookie", set_cookie);
    return r;
  };

  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse r = errorFor(
        path, 405,
        "method " + request.method + " not allowed: goheap serve only answers GET and HEAD");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  if (path == "/api/status") return withCookie(jsonAnswer(statusJson()));
  if (!path.starts_with("/api/")) return withCookie(staticFile(path));

  const auto endpoint = endpoints.find(path);
  if (endpoint == endpoints.end()) {
    return apiError(404, "no such endpoint: " + path + " (see docs/web-api.md)");
  }
  const analysis::Snapshot* snap = ready.load();
  if (snap == nullptr) {
    std::lock_guard lock(mu);
    if (load_error) return apiError(500, "the dump could not be loaded: " + *load_error);
    return apiError(503, "the dump is still loading (" + phase + "); see /api/status");
  }
  // The analysis itself runs on the worker pool. The files are checked
  // before and after it: an answer read from a dump that was cut short or
  // rewritten meanwhile (its pages read as zeros) is not an answer.
  return Job(
      [this, snap, route = &endpoint->second, query = std::move(query), withCookie]() mutable {
        if (auto changed = filesChanged(*snap)) return changedOnDisk(*changed);
        Params p(std::move(query), route->params);
        if (p.error()) return apiError(400, *p.error());
        HttpResponse answer;
        try {
          answer = route->answer(*snap, p);
        } catch (const std::exception& e) {
          answer = apiError(500, std::string("internal error: ") + e.what());
        }
        if (auto changed = filesChanged(*snap)) return changedOnDisk(*changed);
        return withCookie(std::move(answer));
      });
}

// An embedded file, "/" being index.html, or a 404. Range requests are not
// honoured: the files are small and always sent whole.
HttpResponse Server::State::staticFile(const std::string& path) const {
  const std::string file = path == "/" ? "/index.html" : path;
  for (const WebAsset& a : webAssets()) {
    if (a.path == file) {
      HttpResponse r;
      r.content_type = std::string(a.content_type);
      r.body = {reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size()};
      return r;  // compiled in: nothing to own
    }
  }
  return HttpResponse::of(404, kText, "not found: " + path + "\n");
}

void Server::State::addEndpoints() {
  endpoints["/api/summary"] = {{"n"}, [](const analysis::Snapshot& snap, Params& p) {
                                 const uint64_t n = p.number("n", 10);
                                 if (p.error()) return apiError(400, *p.error());
                                 return jsonAnswer(cli::summaryJson(analysis::summarize(snap, n)));
                               }};

  endpoints["/api/top"] = {{"by", "sort", "n", "offset", "filter"},
                           [](const analysis::Snapshot& snap, Params& p) {
                             cli::TopQuery q;
                             q.by = p.choice("by", {"auto", "type", "site", "shape"}, q.by);
                             q.sort = p.choice("sort", {"retained", "shallow", "count"}, q.sort);
                             q.limit = p.number("n", q.limit);
                             q.offset = p.number("offset", q.offset);
                             q.filter = p.text("filter", q.filter);
                             if (p.error()) return apiError(400, *p.error());
                             return jsonAnswer(cli::topJson(q, cli::queryTop(snap, q)));
                           }};

  endpoints["/api/dom"] = {{"from", "node", "depth", "min_bytes", "max_children"},
                           [](const analysis::Snapshot& snap, Params& p) {
                             cli::DomQuery q;
                             if (p.has("from")) q.from = p.address("from");
                             if (p.has("node")) q.from_node = p.number("node", 0);
                             if (q.from && q.from_node) {
                               return apiError(400, "give from or node, not both");
                             }
                             q.depth = p.number("depth", q.depth);
                             q.min_bytes = p.byteSize("min_bytes", q.min_bytes);
                             q.max_children = p.number("max_children", q.max_children);
                             if (p.error()) return apiError(400, *p.error());
                             std::optional<cli::QueryError> error;
                             auto rows = cli::queryDom(snap, q, error);
                             if (!rows) return queryError(*error);
                             return jsonAnswer(cli::domJson(snap, *rows));
                           }};

  endpoints["/api/search"] = {{"q", "n"}, [](const analysis::Snapshot& snap, Params& p) {
                                p.require("q");
                                const uint64_t n = p.number("n", 20);
                                if (p.error()) return apiError(400, *p.error());
                                const std::string q = p.text("q", "");
                                if (q.empty()) {
                                  return apiError(400,
                                                  "q is empty: search for an address or a name");
                                }
                                return jsonAnswer(cli::searchJson(snap, q, n == 0 ? 20 : n));
                              }};

  endpoints["/api/flame"] = {
      {"min_bytes", "max_depth"}, [](const analysis::Snapshot& snap, Params& p) {
        // By default frames of less than 1/1000 of the heap fold into
        // their parents: enough for a screen, small for the browser.
        const uint64_t total = snap.retained[snap.heap.superRoot()];
        const uint64_t min_bytes = p.byteSize("min_bytes", std::max<uint64_t>(total / 1000, 1));
        const uint64_t max_depth = p.number("max_depth", analysis::kMaxFlameDepth);
        if (p.error()) return apiError(400, *p.error());
        if (max_depth == 0 || max_depth > 1024) {
          return apiError(400, "max_depth must be between 1 and 1024");
        }
        return jsonAnswer(cli::flameJson(
            snap, analysis::retentionFlame(snap, min_bytes, static_cast<uint32_t>(max_depth))));
      }};

  endpoints["/api/paths"] = {
      {"addr", "n"}, [](const analysis::Snapshot& snap, Params& p) {
        p.require("addr");
        const uint64_t addr = p.address("addr");
        const uint64_t n = p.number("n", 5);
        if (p.error()) return apiError(400, *p.error());
        std::optional<cli::QueryError> error;
        auto target = cli::findObject(snap, addr, error);
        if (!target) return queryError(*error);
        return jsonAnswer(cli::pathsJson(snap, *target, analysis::pathsToRoots(snap, *target, n)));
      }};

  endpoints["/api/obj"] = {
      {"addr", "bytes", "referrers"}, [](const analysis::Snapshot& snap, Params& p) {
        p.require("addr");
        const uint64_t addr = p.address("addr");
        const uint64_t bytes = p.byteSize("bytes", 256);
        const uint64_t referrers = p.number("referrers", 20);
        if (p.error()) return apiError(400, *p.error());
        std::optional<cli::QueryError> error;
        auto o = cli::findObject(snap, addr, error);
        if (!o) return queryError(*error);
        return jsonAnswer(cli::objJson(snap, analysis::objectInfo(snap, *o, referrers), bytes));
      }};

  endpoints["/api/goroutines"] = {
      {"sort", "user", "frames"}, [](const analysis::Snapshot& snap, Params& p) {
        cli::GoroutinesQuery q;
        q.sort = p.choice("sort", {"id", "retained"}, q.sort);
        q.user = p.flag("user");
        q.frames = !p.has("frames") || p.flag("frames");
        if (p.error()) return apiError(400, *p.error());
        return jsonAnswer(cli::goroutinesJson(cli::queryGoroutines(snap, q), q.frames));
      }};

  // Leak suspects (cmd_suspects.cpp): threshold in percent, limit as -n.
  endpoints["/api/suspects"] = {
      {"threshold", "limit", "accumulation"}, [this](const analysis::Snapshot& snap, Params& p) {
        cli::SuspectsQuery q;
        q.limit = p.number("limit", q.limit);
        q.accumulation = p.number("accumulation", q.accumulation);
        if (!p.error() && (q.accumulation < 50 || q.accumulation > 100)) {
          return apiError(400, "accumulation must be from 50 to 100");
        }
        if (p.error()) return apiError(400, *p.error());
        if (p.has("threshold")) {
          Expected<double> t = cli::parsePercent(p.text("threshold", ""));
          if (!t) return apiError(400, "bad value for threshold: " + t.error().message());
          q.threshold = *t;
        }
        const AnswerKey key = AnswerKey("suspects")
                                  .add("threshold", q.threshold)
                                  .add("limit", q.limit)
                                  .add("accumulation", q.accumulation);
        return remembered(snap, key,
                          [&] { return cli::suspectsJson(cli::querySuspects(snap, q)); });
      }};

  endpoints["/api/diff"] = {
      {"by", "sort", "limit", "n", "offset", "filter", "unchanged"},
      [this](const analysis::Snapshot& snap, Params& p) {
        cli::DiffQuery q;
        q.by = p.choice("by", {"auto", "type", "site", "shape"}, q.by);
        q.sort = p.choice("sort", {"retained", "shallow", "count"}, q.sort);
        q.limit = p.number("limit", p.number("n", q.limit));
        q.offset = p.number("offset", q.offset);
        q.filter = p.text("filter", q.filter);
        q.unchanged = p.has("unchanged") && p.flag("unchanged");
        if (p.error()) return apiError(400, *p.error());
        if (base == nullptr) {
          return apiError(404,
                          "no base dump to compare with: start the server with "
                          "`goheap serve NEW [EXE] --base OLD`");
        }
        const AnswerKey key = AnswerKey("diff")
                                  .add("by", q.by)
                                  .add("sort", q.sort)
                                  .add("limit", q.limit)
                                  .add("offset", q.offset)
                                  .add("unchanged", q.unchanged)
                                  .add("filter", q.filter);
        return remembered(snap, key, [&] {
          const auto ns = newSinceBase(snap, cli::diffGrouping(*base, snap, q));
          return cli::diffJson(q, cli::queryDiff(*base, snap, q, ns.get()));
        });
      }};

  // Duplicates and waste: the parameters of `goheap dups` and `goheap waste`.
  endpoints["/api/dups"] = {
      {"kind", "n", "min_wasted"}, [this](const analysis::Snapshot& snap, Params& p) {
        cli::DupsQuery q;
        q.kind = p.choice("kind", {"all", "strings", "bytes", "objects"}, q.kind);
        q.limit = p.number("n", q.limit);
        q.min_wasted = p.byteSize("min_wasted", q.min_wasted);
        if (p.error()) return apiError(400, *p.error());
        const AnswerKey key =
            AnswerKey("dups").add("kind", q.kind).add("n", q.limit).add("min_wasted", q.min_wasted);
        return remembered(snap, key,
                          [&] { return cli::dupsJson(snap, q, cli::queryDups(snap, q)); });
      }};

  endpoints["/api/waste"] = {{"n"}, [this](const analysis::Snapshot& snap, Params& p) {
                               cli::WasteQuery q;
                               q.limit = p.number("n", q.limit);
                               if (p.error()) return apiError(400, *p.error());
                               return remembered(snap, AnswerKey("waste").add("n", q.limit), [&] {
                                 return cli::wasteJson(snap, q, cli::queryWaste(snap, q));
                               });
                             }};
}

Status checkListenAddress(const HostPort& where, bool allow_remote) {
  if (allow_remote || isLoopbackHost(where.host)) return Status::success();
  return Error("--http " + hostAndPort(where) +
               " listens beyond this machine, and the API shows everything in the dump to "
               "whoever connects; listen on 127.0.0.1 (the default), or add --allow-remote to "
               "do it anyway: every request must then carry the access token goheap prints");
}

Expected<HostPort> parseHostPort(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Error("--http wants HOST:PORT, like 127.0.0.1:8080 (" + why + "): got \"" +
                 std::string(text) + "\"");
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 address goes in brackets: [::1]:8080");
  }
  if (host.empty()) return bad("no host");
  Expected<uint64_t> port = parseUint(port_text);
  if (!port) return bad("the port is not a number");
  if (*port > 65535) return bad("the port is above 65535");
  return HostPort{std::string(host), static_cast<uint16_t>(*port)};
}

std::string hostAndPort(const HostPort& where) {
  const bool v6 = where.host.find(':') != std::string::npos;
  return (v6 ? "[" + where.host + "]" : where.host) + ":" + std::to_string(where.port);
}

std::string urlOf(const HostPort& where) {
  return "http://" + hostAndPort(where) + "/";
}

Server::Server(std::unique_ptr<State> state) : state_(std::move(state)) {}

Server::~Server() {
  stop();
}

Expected<std::unique_ptr<Server>> Server::start(const HostPort& where,
                                                const ServeOptions& options) {
  if (Status st = checkListenAddress(where, options.allow_remote); !st) return st.error();
  std::string token;
  if (options.allow_remote) {
    Expected<std::string> made = newAccessToken();
    if (!made) return made.error();
    token = made.take();
  }
  auto state = std::make_unique<State>(options.answer_cache_bytes);
  state->where = where;
  state->addEndpoints();
  auto http = HttpServer::listen(where.host, where.port, options.limits);
  if (!http) return http.error();
  state->where.port = (*http)->port();
  // The policy names its cookie by the port, known only now; it is in place
  // before the first request is read.
  state->access.emplace(where.host, state->where.port, options.allowed_hosts, std::move(token));
  state->http = http.take();
  state->http->start(*state);
  return std::unique_ptr<Server>(new Server(std::move(state)));
}

const HostPort& Server::where() const {
  return state_->where;
}

std::string Server::url() const {
  const std::string& token = accessToken();
  return urlOf(where()) + (token.empty() ? "" : "?token=" + token);
}

const std::string& Server::accessToken() const {
  return state_->access->token();
}

void Server::serve(std::unique_ptr<analysis::Snapshot> snapshot) {
  state_->publish(std::move(snapshot));
}

void Server::setBase(std::string base_path) {
  std::lock_guard lock(state_->mu);
  state_->base_path = std::move(base_path);
}

void Server::loadInBackground(std::string dump_path, std::string exe_path,
                              std::function<void(const std::string&)> warn,
                              std::function<void(const Error*)> on_loaded) {
  State* s = state_.get();
  s->loader = std::thread([s, dump_path = std::move(dump_path), exe_path = std::move(exe_path),
                           warn = std::move(warn), on_loaded = std::move(on_loaded)] {
    auto say = [&](const std::string& w) {
      if (warn) warn(w);
    };
    // One dump as the commands load it; `label` tells the base's phases apart.
    auto load = [&](const std::string& path,
                    const std::string& label) -> Expected<std::unique_ptr<analysis::Snapshot>> {
      std::error_code size_error;
      const uint64_t file_size = std::filesystem::file_size(path, size_error);
      analysis::LoadHooks hooks;
      hooks.begin_phase = [&](std::string_view name) {
        // Only reading reports how far it got, in bytes of the file.
        s->setPhase(std::string(name) + label, name == "read dump" && !size_error ? file_size : 0);
      };
      hooks.progress = [s](uint64_t done, uint64_t) {
        std::lock_guard lock(s->mu);
        s->phase_done = done;
      };
      auto snapshot = analysis::loadSnapshot(path, hooks);
      if (!snapshot) return snapshot;
      for (const std::string& w : (*snapshot)->dump.warnings) say(path + ": " + w);
      if (!exe_path.empty()) {
        s->setPhase("read executable" + label, 0);
        if (Status st = analysis::attachExecutable(**snapshot, exe_path); !st) {
          say((label.empty() ? "" : path + ": ") + "not using the executable: " +
              st.error().message() + "; carrying on from the dump alone");
        }
      }
      if ((*snapshot)->exe) {
        s->setPhase("type objects (DWARF)" + label, 0);
        if (Status st = analysis::typeObjects(**snapshot); !st) {
          say("no types from the executable (" + st.error().message() + ")");
        }
      }
      return snapshot;
    };
    auto failed = [&](const Error& e) {
      {
        std::lock_guard lock(s->mu);
        s->load_error = e.message();
      }
      if (on_loaded) on_loaded(&e);
    };
    auto snapshot = load(dump_path, "");
    if (!snapshot) return failed(snapshot.error());
    if (!s->base_path.empty()) {
      auto base = load(s->base_path, " (base)");
      if (!base) return failed(Error("base " + s->base_path + ": " + base.error().message()));
      s->setPhase("index for queries (base)", 0);
      (*base)->prepareForConcurrentReads();
      std::lock_guard lock(s->mu);
      s->base = base.take();
    }
    // Naming objects and the dominator children are built lazily by const
    // calls; done here, before the first request sees the Snapshot.
    s->setPhase("index for queries", 0);
    s->publish(snapshot.take());
    if (on_loaded) on_loaded(nullptr);
  });
}

void Server::wait() {
  std::unique_lock lock(state_->done_mu);
  state_->done_cv.wait(lock, [this] { return state_->done; });
}

void Server::stop() {
  std::call_once(state_->stopped, [this] {
    if (state_->http) state_->http->stop();
    if (state_->loader.joinable()) state_->loader.join();
    std::lock_guard lock(state_->done_mu);
    state_->done = true;
    state_->done_cv.notify_all();
  });
}

}  // namespace goheap::serve
