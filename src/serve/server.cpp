#include "serve/server.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "analysis/queries.h"
#include "cli/json_render.h"
#include "serve/web_assets.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace goheap::serve {

namespace {

constexpr const char* kJson = "application/json";

std::string errorJson(const std::string& message) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject().field("error", message).endObject();
  return out;
}

void reply(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, kJson);
}

void replyError(httplib::Response& res, int status, const std::string& message) {
  reply(res, status, errorJson(message));
}

// The query parameters of one request, read with the CLI's own parsers
// (util/format.h) so "64K" or "0xc000..." mean the same in both. The first
// bad or unknown parameter is remembered and answered with 400.
class Params {
 public:
  Params(const httplib::Request& req, std::initializer_list<std::string_view> known) {
    const std::set<std::string_view> allowed(known);
    for (const auto& [name, value] : req.params) {
      if (!allowed.contains(name)) {
        std::string list;
        for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail("unknown parameter \"" + name +
             "\" (this endpoint takes: " + (list.empty() ? "none" : list) + ")");
      }
    }
    req_ = &req;
  }

  const std::optional<std::string>& error() const { return error_; }

  bool has(const std::string& name) const { return req_->has_param(name); }
  std::string text(const std::string& name, std::string fallback) const {
    return has(name) ? req_->get_param_value(name) : fallback;
  }
  std::string choice(const std::string& name, std::initializer_list<std::string_view> values,
                     std::string fallback) {
    std::string v = text(name, fallback);
    for (std::string_view allowed : values) {
      if (v == allowed) return v;
    }
    std::string list;
    for (std::string_view allowed : values)
      list += (list.empty() ? "" : ", ") + std::string(allowed);
    fail("bad value \"" + v + "\" for " + name + ": one of " + list);
    return fallback;
  }
  uint64_t number(const std::string& name, uint64_t fallback) {
    return parsed(name, fallback, parseUint);
  }
  uint64_t byteSize(const std::string& name, uint64_t fallback) {
    return parsed(name, fallback, parseByteSize);
  }
  uint64_t address(const std::string& name) { return parsed(name, 0, parseAddress); }
  bool flag(const std::string& name) {
    const std::string v = text(name, "false");
    if (v == "true" || v == "1" || v.empty()) return true;
    if (v == "false" || v == "0") return false;
    fail("bad value \"" + v + "\" for " + name + ": true or false");
    return false;
  }
  void require(const std::string& name) {
    if (!has(name)) fail("missing parameter \"" + name + "\"");
  }

 private:
  uint64_t parsed(const std::string& name, uint64_t fallback,
                  Expected<uint64_t> (*parse)(std::string_view)) {
    if (!has(name)) return fallback;
    Expected<uint64_t> v = parse(req_->get_param_value(name));
    if (!v) {
      fail("bad value for " + name + ": " + v.error().message());
      return fallback;
    }
    return *v;
  }
  void fail(std::string message) {
    if (!error_) error_ = std::move(message);
  }

  const httplib::Request* req_ = nullptr;
  std::optional<std::string> error_;
};

// What a query helper's QueryError becomes.
void replyQueryError(httplib::Response& res, const cli::QueryError& e) {
  replyError(res, e.kind == cli::QueryError::Kind::NotFound ? 404 : 400, e.error.message());
}

}  // namespace

struct Server::State {
  HostPort where;
  httplib::Server http;
  std::thread listener;
  std::thread loader;
  std::once_flag stopped;
  // Set when the listener returns, for wait(); stop() alone joins it.
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool listener_done = false;

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

  void setPhase(std::string name, uint64_t total) {
    std::lock_guard lock(mu);
    phase = std::move(name);
    phase_done = 0;
    phase_total = total;
  }

  std::string statusJson() {
    std::lock_guard lock(mu);
    std::string out;
    JsonWriter w(out, JsonWriter::Style::Pretty);
    w.beginObject();
    w.field("schema_version", 1);
    const bool done = ready.load() != nullptr;
    w.field("state", done ? "ready" : load_error ? "failed" : "loading");
    w.field("phase", done ? std::string("done") : phase);
    double fraction = 0;
    if (done) {
      fraction = 1;
    } else if (phase_total > 0) {
      fraction =
          static_cast<double>(std::min(phase_done, phase_total)) / static_cast<double>(phase_total);
    }
    w.field("fraction", fraction);
    w.field("elapsed_seconds",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (load_error) w.field("error", *load_error);
    w.field("has_base", !base_path.empty());
    if (!base_path.empty()) {
      w.field("base_file", base_path).field("base_loaded", done && base != nullptr);
    }
    w.endObject();
    return out;
  }

  // The Snapshot, or nullptr after answering 503 (still loading) or 500
  // (loading failed).
  const analysis::Snapshot* snapshotOr503(httplib::Response& res) {
    if (const analysis::Snapshot* s = ready.load()) return s;
    std::lock_guard lock(mu);
    if (load_error) {
      replyError(res, 500, "the dump could not be loaded: " + *load_error);
    } else {
      replyError(res, 503, "the dump is still loading (" + phase + "); see /api/status");
    }
    return nullptr;
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

  // The base dump (serve --base OLD) for /api/diff: its path is set before
  // loading starts, the Snapshot before `ready`, and neither changes after.
  std::string base_path;
  std::unique_ptr<analysis::Snapshot> base;
  // The new objects by holder, per grouping: the costly part of a diff,
  // the same for every sort, filter and page.
  std::mutex diff_mu;
  std::map<typing::GroupKind, std::shared_ptr<const analysis::NewSince>> new_since;
  std::shared_ptr<const analysis::NewSince> newSinceBase(const analysis::Snapshot& snap,
                                                         typing::GroupKind by) {
    std::lock_guard lock(diff_mu);
    std::shared_ptr<const analysis::NewSince>& slot = new_since[by];
    if (!slot)
      slot = std::make_shared<const analysis::NewSince>(analysis::newSince(*base, snap, by));
    return slot;
  }

  // Answers that take seconds on a big heap (suspects, dups, waste, diff),
  // by endpoint and parameters: the snapshot never changes after loading,
  // so a page visited again, or by another user, is answered at once. Two
  // first requests for one key may both compute it; the answer is the same.
  std::mutex answers_mu;
  std::map<std::string, std::shared_ptr<const std::string>> answers;
  std::shared_ptr<const std::string> remembered(const std::string& key,
                                                const std::function<std::string()>& compute) {
    {
      std::lock_guard lock(answers_mu);
      if (auto it = answers.find(key); it != answers.end()) return it->second;
    }
    auto body = std::make_shared<const std::string>(compute());
    std::lock_guard lock(answers_mu);
    return answers.emplace(key, body).first->second;
  }

  void routes();
};

void Server::State::routes() {
  http.Get("/api/status", [this](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, statusJson());
  });

  // Each endpoint reads the same parameters as its CLI command, with the
  // same defaults, and renders with the command's own JSON function.
  auto guarded = [this](auto body) {
    return [this, body](const httplib::Request& req, httplib::Response& res) {
      const analysis::Snapshot* snap = snapshotOr503(res);
      if (snap == nullptr) return;
      try {
        body(*snap, req, res);
      } catch (const std::exception& e) {
        replyError(res, 500, std::string("internal error: ") + e.what());
      }
    };
  };

  http.Get("/api/summary", guarded([](const analysis::Snapshot& snap, const httplib::Request& req,
                                      httplib::Response& res) {
             Params p(req, {"n"});
             const uint64_t n = p.number("n", 10);
             if (p.error()) return replyError(res, 400, *p.error());
             reply(res, 200, cli::summaryJson(analysis::summarize(snap, n)));
           }));

  http.Get("/api/top", guarded([](const analysis::Snapshot& snap, const httplib::Request& req,
                                  httplib::Response& res) {
             Params p(req, {"by", "sort", "n", "offset", "filter"});
             cli::TopQuery q;
             q.by = p.choice("by", {"auto", "type", "site", "shape"}, q.by);
             q.sort = p.choice("sort", {"retained", "shallow", "count"}, q.sort);
             q.limit = p.number("n", q.limit);
             q.offset = p.number("offset", q.offset);
             q.filter = p.text("filter", q.filter);
             if (p.error()) return replyError(res, 400, *p.error());
             reply(res, 200, cli::topJson(q, cli::queryTop(snap, q)));
           }));

  http.Get("/api/dom", guarded([](const analysis::Snapshot& snap, const httplib::Request& req,
                                  httplib::Response& res) {
             Params p(req, {"from", "node", "depth", "min_bytes", "max_children"});
             cli::DomQuery q;
             if (p.has("from")) q.from = p.address("from");
             if (p.has("node")) q.from_node = p.number("node", 0);
             if (q.from && q.from_node) {
               return replyError(res, 400, "give from or node, not both");
             }
             q.depth = p.number("depth", q.depth);
             q.min_bytes = p.byteSize("min_bytes", q.min_bytes);
             q.max_children = p.number("max_children", q.max_children);
             if (p.error()) return replyError(res, 400, *p.error());
             std::optional<cli::QueryError> error;
             auto rows = cli::queryDom(snap, q, error);
             if (!rows) return replyQueryError(res, *error);
             reply(res, 200, cli::domJson(snap, *rows));
           }));

  http.Get("/api/search", guarded([](const analysis::Snapshot& snap, const httplib::Request& req,
                                     httplib::Response& res) {
             Params p(req, {"q", "n"});
             p.require("q");
             const uint64_t n = p.number("n", 20);
             if (p.error()) return replyError(res, 400, *p.error());
             const std::string q = req.get_param_value("q");
             if (q.empty())
               return replyError(res, 400, "q is empty: search for an address or a name");
             reply(res, 200, cli::searchJson(snap, q, n == 0 ? 20 : n));
           }));

  http.Get("/api/flame", guarded([](const analysis::Snapshot& snap, const httplib::Request& req,
                                    httplib::Response& res) {
             Params p(req, {"min_bytes", "max_depth"});
             // By default frames of less than 1/1000 of the heap fold into
             // their parents: enough for a screen, small for the browser.
             const uint64_t total = snap.retained[snap.heap.superRoot()];
             const uint64_t min_bytes =
                 p.byteSize("min_bytes", std::max<uint64_t>(total / 1000, 1));
             const uint64_t max_depth = p.number("max_depth", analysis::kMaxFlameDepth);
             if (p.error()) return replyError(res, 400, *p.error());
             if (max_depth == 0 || max_depth > 1024) {
               return replyError(res, 400, "max_depth must be between 1 and 1024");
             }
             reply(res, 200,
                   cli::flameJson(snap, analysis::retentionFlame(
                                            snap, min_bytes, static_cast<uint32_t>(max_depth))));
           }));

  http.Get("/api/paths", guarded([](const analysis::Snapshot& snap, const httplib::Request& req,
                                    httplib::Response& res) {
             Params p(req, {"addr", "n"});
             p.require("addr");
             const uint64_t addr = p.address("addr");
             const uint64_t n = p.number("n", 5);
             if (p.error()) return replyError(res, 400, *p.error());
             std::optional<cli::QueryError> error;
             auto target = cli::findObject(snap, addr, error);
             if (!target) return replyQueryError(res, *error);
             reply(res, 200,
                   cli::pathsJson(snap, *target, analysis::pathsToRoots(snap, *target, n)));
           }));

  http.Get("/api/obj", guarded([](const analysis::Snapshot& snap, const httplib::Request& req,
                                  httplib::Response& res) {
             Params p(req, {"addr", "bytes", "referrers"});
             p.require("addr");
             const uint64_t addr = p.address("addr");
             const uint64_t bytes = p.byteSize("bytes", 256);
             const uint64_t referrers = p.number("referrers", 20);
             if (p.error()) return replyError(res, 400, *p.error());
             std::optional<cli::QueryError> error;
             auto o = cli::findObject(snap, addr, error);
             if (!o) return replyQueryError(res, *error);
             reply(res, 200, cli::objJson(snap, analysis::objectInfo(snap, *o, referrers), bytes));
           }));

  http.Get("/api/goroutines", guarded([](const analysis::Snapshot& snap,
                                         const httplib::Request& req, httplib::Response& res) {
             Params p(req, {"sort", "user", "frames"});
             cli::GoroutinesQuery q;
             q.sort = p.choice("sort", {"id", "retained"}, q.sort);
             q.user = p.flag("user");
             q.frames = !p.has("frames") || p.flag("frames");
             if (p.error()) return replyError(res, 400, *p.error());
             reply(res, 200, cli::goroutinesJson(cli::queryGoroutines(snap, q), q.frames));
           }));

  // Leak suspects (cmd_suspects.cpp): threshold in percent, limit as -n.
  http.Get("/api/suspects", guarded([this](const analysis::Snapshot& snap,
                                           const httplib::Request& req, httplib::Response& res) {
             Params p(req, {"threshold", "limit", "accumulation"});
             cli::SuspectsQuery q;
             q.limit = p.number("limit", q.limit);
             q.accumulation = p.number("accumulation", q.accumulation);
             if (!p.error() && (q.accumulation < 50 || q.accumulation > 100)) {
               return replyError(res, 400, "accumulation must be from 50 to 100");
             }
             if (p.error()) return replyError(res, 400, *p.error());
             if (p.has("threshold")) {
               Expected<double> t = cli::parsePercent(req.get_param_value("threshold"));
               if (!t)
                 return replyError(res, 400, "bad value for threshold: " + t.error().message());
               q.threshold = *t;
             }
             const std::string key = "suspects " + std::to_string(q.threshold) + " " +
                                     std::to_string(q.limit) + " " + std::to_string(q.accumulation);
             reply(res, 200, *remembered(key, [&] {
                     return cli::suspectsJson(cli::querySuspects(snap, q));
                   }));
           }));

  http.Get("/api/diff", guarded([this](const analysis::Snapshot& snap, const httplib::Request& req,
                                       httplib::Response& res) {
             Params p(req, {"by", "sort", "limit", "n", "offset", "filter", "unchanged"});
             cli::DiffQuery q;
             q.by = p.choice("by", {"auto", "type", "site", "shape"}, q.by);
             q.sort = p.choice("sort", {"retained", "shallow", "count"}, q.sort);
             q.limit = p.number("limit", p.number("n", q.limit));
             q.offset = p.number("offset", q.offset);
             q.filter = p.text("filter", q.filter);
             q.unchanged = p.has("unchanged") && p.flag("unchanged");
             if (p.error()) return replyError(res, 400, *p.error());
             if (base == nullptr) {
               return replyError(res, 404,
                                 "no base dump to compare with: start the server with "
                                 "`goheap serve NEW [EXE] --base OLD`");
             }
             const std::string key = "diff " + q.by + " " + q.sort + " " + std::to_string(q.limit) +
                                     " " + std::to_string(q.offset) + " " +
                                     (q.unchanged ? "all " : "changed ") + q.filter;
             reply(res, 200, *remembered(key, [&] {
                     const auto ns = newSinceBase(snap, cli::diffGrouping(*base, snap, q));
                     return cli::diffJson(q, cli::queryDiff(*base, snap, q, ns.get()));
                   }));
           }));

  // Duplicates and waste: the parameters of `goheap dups` and `goheap waste`.
  http.Get("/api/dups", guarded([this](const analysis::Snapshot& snap, const httplib::Request& req,
                                       httplib::Response& res) {
             Params p(req, {"kind", "n", "min_wasted"});
             cli::DupsQuery q;
             q.kind = p.choice("kind", {"all", "strings", "bytes", "objects"}, q.kind);
             q.limit = p.number("n", q.limit);
             q.min_wasted = p.byteSize("min_wasted", q.min_wasted);
             if (p.error()) return replyError(res, 400, *p.error());
             const std::string key = "dups " + q.kind + " " + std::to_string(q.limit) + " " +
                                     std::to_string(q.min_wasted);
             reply(res, 200, *remembered(key, [&] {
                     return cli::dupsJson(snap, q, cli::queryDups(snap, q));
                   }));
           }));

  http.Get("/api/waste", guarded([this](const analysis::Snapshot& snap, const httplib::Request& req,
                                        httplib::Response& res) {
             Params p(req, {"n"});
             cli::WasteQuery q;
             q.limit = p.number("n", q.limit);
             if (p.error()) return replyError(res, 400, *p.error());
             reply(res, 200, *remembered("waste " + std::to_string(q.limit), [&] {
                     return cli::wasteJson(snap, q, cli::queryWaste(snap, q));
                   }));
           }));

  // Everything else: an embedded file, "/" being index.html, or a 404 (JSON
  // under /api/, where a client expects JSON).
  http.Get(R"(/.*)", [](const httplib::Request& req, httplib::Response& res) {
    const std::string path = req.path == "/" ? "/index.html" : req.path;
    for (const WebAsset& a : webAssets()) {
      if (a.path == path) {
        res.status = 200;
        res.set_content(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size(),
                        std::string(a.content_type));
        return;
      }
    }
    if (req.path.starts_with("/api/")) {
      replyError(res, 404, "no such endpoint: " + req.path + " (see docs/web-api.md)");
    } else {
      res.status = 404;
      res.set_content("not found: " + req.path + "\n", "text/plain; charset=utf-8");
    }
  });
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

std::string urlOf(const HostPort& where) {
  const bool v6 = where.host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + where.host + "]" : where.host) + ":" + std::to_string(where.port) +
         "/";
}

Server::Server(std::unique_ptr<State> state) : state_(std::move(state)) {}

Server::~Server() {
  stop();
}

Expected<std::unique_ptr<Server>> Server::start(const HostPort& where) {
  auto state = std::make_unique<State>();
  state->where = where;
  state->routes();
  if (where.port == 0) {
    const int port = state->http.bind_to_any_port(where.host);
    if (port <= 0) return Error("cannot listen on " + where.host + " (not an address here?)");
    state->where.port = static_cast<uint16_t>(port);
  } else if (!state->http.bind_to_port(where.host, where.port)) {
    return Error("cannot listen on " + urlOf(where) +
                 " (port in use, or not an address of this machine?)");
  }
  State* raw = state.get();
  state->listener = std::thread([raw] {
    raw->http.listen_after_bind();
    std::lock_guard lock(raw->done_mu);
    raw->listener_done = true;
    raw->done_cv.notify_all();
  });
  return std::unique_ptr<Server>(new Server(std::move(state)));
}

const HostPort& Server::where() const {
  return state_->where;
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
  state_->done_cv.wait(lock, [this] { return state_->listener_done; });
}

void Server::stop() {
  std::call_once(state_->stopped, [this] {
    state_->http.stop();
    if (state_->listener.joinable()) state_->listener.join();
    if (state_->loader.joinable()) state_->loader.join();
  });
}

}  // namespace goheap::serve
