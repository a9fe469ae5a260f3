#include "serve/server.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <thread>

#include "mcp/server.h"
#include "query/open.h"
#include "questions/catalog.h"
#include "serve/access.h"
#include "serve/url.h"
#include "sql/database.h"
#include "util/format.h"
#include "util/json_reader.h"
#include "util/json_writer.h"
#include "util/text.h"
#include "web/web_assets.h"

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

// What a question's Error becomes: a mistake in the parameters (or the SQL)
// is 400, a missing object 404, anything else 500. The parameter at fault
// is named for scripts.
HttpResponse questionError(const Error& e) {
  std::string out;
  JsonWriter w(out, JsonWriter::Style::Pretty);
  w.beginObject().field("error", e.message());
  if (!e.parameter().empty()) w.field("parameter", e.parameter());
  w.endObject();
  const int status = e.kind() == ErrorKind::NeedsInput ? 400
                     : e.kind() == ErrorKind::NotFound ? 404
                                                       : 500;
  return HttpResponse::of(status, kJson, std::move(out));
}

}  // namespace

// /mcp's tools answer about the heap (and base) the server has open.
class ServedHeaps final : public mcp::HeapProvider {
 public:
  using Get = std::function<Expected<Heaps>()>;
  explicit ServedHeaps(Get get) : get_(std::move(get)) {}
  mcp::HeapChoice choice() const override { return mcp::HeapChoice::Served; }
  Expected<Heaps> heaps(const questions::Question& question, const mcp::ToolArguments& /*args*/,
                        Sink& /*sink*/) override {
    GOHEAP_TRY(Heaps heaps, get_());
    if (question.heaps == questions::HeapsNeeded::OldAndNew && heaps.base == nullptr) {
      return Error::notFound(
          "no base dump to compare with: start the server with `goheap serve NEW [EXE] --base "
          "OLD`");
    }
    return heaps;
  }

 private:
  Get get_;
};

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
  query::OpenOptions open_options;
  std::shared_ptr<const query::Session> owned;
  // Set once the Session is opened and prepared; from then on its Snapshot
  // is never written, and its memo is safe to share between threads.
  std::atomic<const query::Session*> ready{nullptr};

  // The base dump (serve --base OLD) for /api/diff: its path is set before
  // loading starts, the Session before `ready`, and neither changes after.
  std::string base_path;
  std::shared_ptr<const query::Session> base;

  // /api/sql's limits.
  double sql_seconds = 30;
  uint64_t sql_max_rows = 10000;
  // A question of the table (questions/catalog.h) answered from the heaps.
  HttpResponse answer(const questions::Question& question, const query::Session& session,
                      const std::vector<std::pair<std::string, std::string>>& given);

  // The MCP server at /mcp, over the same heaps, and the session IDs it
  // gave out at initialize.
  std::unique_ptr<ServedHeaps> mcp_heaps;
  std::unique_ptr<mcp::McpServer> mcp_server;
  std::mutex mcp_mu;
  std::set<std::string> mcp_sessions;
  std::variant<HttpResponse, Job> mcp(const HttpRequest& request);

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
  std::optional<std::string> filesChanged(const query::Session& session) const {
    for (const query::Session* s : {&session, base.get()}) {
      if (s == nullptr) continue;
      if (Status st = s->checkFilesUnchanged(); !st) return st.error().message();
    }
    return std::nullopt;
  }
  static HttpResponse changedOnDisk(const std::string& why) {
    return apiError(409, "the dump changed on disk (" + why + "); restart goheap serve");
  }

  std::string statusJson() {
    const query::Session* snap = ready.load();
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

  void publish(std::shared_ptr<const query::Session> session) {
    session->prepareForServing();
    const query::Session* raw = session.get();
    {
      std::lock_guard lock(mu);
      owned = std::move(session);
    }
    ready.store(raw);
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
  if (std::string_view auth = request.authorization; auth.starts_with("Bearer ")) {
    credentials.bearer_token = auth.substr(7);
  }
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

  if (path == "/mcp") {
    auto routed = mcp(request);
    if (auto* now = std::get_if<HttpResponse>(&routed)) return withCookie(std::move(*now));
    return Job([job = std::move(std::get<Job>(routed)), withCookie] { return withCookie(job()); });
  }
  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse r = errorFor(
        path, 405,
        "method " + request.method + " not allowed: goheap serve only answers GET and HEAD");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  if (path == "/api/status") return withCookie(jsonAnswer(statusJson()));
  if (!path.starts_with("/api/")) return withCookie(staticFile(path));

  const questions::Question* question = questions::findQuestion(path.substr(5));
  if (question == nullptr) {
    return apiError(404, "no such endpoint: " + path + " (see docs/web-api.md)");
  }
  const query::Session* session = ready.load();
  if (session == nullptr) {
    std::lock_guard lock(mu);
    if (load_error) return apiError(500, "the dump could not be loaded: " + *load_error);
    return apiError(503, "the dump is still loading (" + phase + "); see /api/status");
  }
  // The analysis itself runs on the worker pool. The files are checked
  // before and after it: an answer read from a dump that was cut short or
  // rewritten meanwhile (its pages read as zeros) is not an answer.
  return Job([this, session, question, query = std::move(query), withCookie]() mutable {
    if (auto changed = filesChanged(*session)) return changedOnDisk(*changed);
    HttpResponse response;
    try {
      response = answer(*question, *session, query);
    } catch (const std::exception& e) {
      response = apiError(500, std::string("internal error: ") + e.what());
    }
    if (auto changed = filesChanged(*session)) return changedOnDisk(*changed);
    return withCookie(std::move(response));
  });
}

// The MCP's Streamable HTTP in its simple form: a POST carries one
// JSON-RPC message and gets one application/json answer (202 for a
// notification); there is no event stream, so GET is 405. The Host header
// and token were checked by route(); a browser's page may still POST to
// loopback, so a request with an Origin must come from this server's own.
std::variant<HttpResponse, HttpHandler::Job> Server::State::mcp(const HttpRequest& request) {
  const auto refuse = [](int status, const std::string& why) {
    return HttpResponse::of(status, kJson, mcp::errorResponse("null", mcp::kInvalidRequest, why));
  };
  if (request.method != "POST") {
    HttpResponse r = refuse(405, "method " + request.method +
                                     " not allowed at /mcp: POST one JSON-RPC message (there "
                                     "is no event stream to GET)");
    r.headers.emplace_back("Allow", "POST");
    return r;
  }
  if (request.origin && *request.origin != "http://" + request.host.value_or("")) {
    return refuse(403, "refused: a request from the page of another origin (" + *request.origin +
                           ") may not use this server");
  }
  if (!asciiLowerCase(request.content_type).starts_with("application/json")) {
    return refuse(415, "/mcp takes Content-Type: application/json");
  }
  const std::string accept = asciiLowerCase(request.accept);
  if (!accept.empty() && accept.find("application/json") == std::string::npos &&
      accept.find("*/*") == std::string::npos) {
    return refuse(406, "/mcp answers application/json: the Accept header must allow it");
  }
  if (!request.mcp_protocol_version.empty() &&
      std::find(std::begin(mcp::kProtocolVersions), std::end(mcp::kProtocolVersions),
                request.mcp_protocol_version) == std::end(mcp::kProtocolVersions)) {
    return refuse(400, "unsupported MCP-Protocol-Version " + request.mcp_protocol_version);
  }
  if (!request.mcp_session_id.empty()) {
    std::lock_guard lock(mcp_mu);
    if (mcp_sessions.count(request.mcp_session_id) == 0) {
      return refuse(404, "no such MCP session (the server was restarted?): initialize again");
    }
  }
  Expected<JsonNode> message = readJson(request.body);
  if (!message) {
    return HttpResponse::of(
        400, kJson, mcp::errorResponse("null", mcp::kParseError, message.error().message()));
  }
  if (message->isObject() &&
      (message->find("method") == nullptr || message->find("id") == nullptr)) {
    mcp::CallContext none;
    mcp_server->handle(*message, none);
    return HttpResponse::of(202, kJson, "");
  }
  return Job([this, message = message.take()]() {
    mcp::CallContext call;
    std::optional<std::string> answer = mcp_server->handle(message, call);
    HttpResponse r = HttpResponse::of(200, kJson, answer.value_or("{}"));
    const JsonNode* method = message.isObject() ? message.find("method") : nullptr;
    if (method != nullptr && method->isString() && method->string() == "initialize") {
      if (Expected<std::string> id = newAccessToken()) {
        std::lock_guard lock(mcp_mu);
        if (mcp_sessions.size() >= 10000) mcp_sessions.clear();
        mcp_sessions.insert(*id);
        r.headers.emplace_back("Mcp-Session-Id", *id);
      }
    }
    return r;
  });
}

HttpResponse Server::State::answer(const questions::Question& question,
                                   const query::Session& session,
                                   const std::vector<std::pair<std::string, std::string>>& given) {
  const query::ParamValues values = query::ParamValues::fromQueryString(question.params, given);
  auto asked = question.read(values);
  if (!asked) return questionError(asked.error());
  if (question.heaps == questions::HeapsNeeded::OldAndNew && base == nullptr) {
    return questionError(Error::notFound(
        "no base dump to compare with: start the server with `goheap serve NEW [EXE] --base OLD`"));
  }
  const questions::Heaps heaps{session, base.get(), sql_max_rows, sql_seconds};
  const auto compute = [&]() -> Expected<std::string> {
    GOHEAP_TRY(auto answer, (*asked)->answer(heaps));
    return answer->json();
  };
  if (!question.kept) {
    Expected<std::string> json = compute();
    return json ? jsonAnswer(json.take()) : questionError(json.error());
  }
  // Costly answers are kept by their parameters as read, so that "n=05"
  // and "n=5" share one.
  auto kept = session.answer(questions::answerKey(question, values), compute);
  if (!kept) return questionError(kept.error());
  return HttpResponse::shared(200, kJson, kept.take());
}

// An embedded file, "/" being index.html, or a 404. Range requests are not
// honoured: the files are small and always sent whole.
HttpResponse Server::State::staticFile(const std::string& path) const {
  const std::string file = path == "/" ? "/index.html" : path;
  for (const web::WebAsset& a : web::webAssets()) {
    if (a.path == file) {
      HttpResponse r;
      r.content_type = std::string(a.content_type);
      r.body = {reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size()};
      return r;  // compiled in: nothing to own
    }
  }
  return HttpResponse::of(404, kText, "not found: " + path + "\n");
}

Status checkListenAddress(const HostPort& where, bool allow_remote) {
  if (allow_remote || isLoopbackHost(where.host)) return Status::success();
  return Error("--http " + hostAndPort(where) +
               " listens beyond this machine, and the API shows everything in the dump to "
               "whoever connects; listen on 127.0.0.1 (the default), or add --allow-remote to "
               "do it anyway: every request must then carry the access token goheap prints");
}

Expected<HostPort> parseHostPort(std::string_view text, std::string_view flag) {
  auto bad = [&](const std::string& why) {
    return Error(std::string(flag) + " wants HOST:PORT, like 127.0.0.1:8080 (" + why + "): got \"" +
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
    GOHEAP_TRY(token, newAccessToken());
  }
  auto state = std::make_unique<State>();
  state->open_options = options.open;
  state->open_options.answer_cache_bytes = options.answer_cache_bytes;
  state->sql_seconds = options.sql_seconds;
  sql::limitSqlMemory(options.sql_memory_bytes);
  state->sql_max_rows = options.sql_max_rows;
  State* raw_state = state.get();
  state->mcp_heaps =
      std::make_unique<ServedHeaps>([raw_state]() -> Expected<mcp::HeapProvider::Heaps> {
        const query::Session* session = raw_state->ready.load();
        if (session == nullptr) {
          std::lock_guard lock(raw_state->mu);
          if (raw_state->load_error)
            return Error("the dump could not be loaded: " + *raw_state->load_error);
          return Error("the dump is still loading (" + raw_state->phase + "); ask again shortly");
        }
        std::lock_guard lock(raw_state->mu);
        return mcp::HeapProvider::Heaps{raw_state->owned, raw_state->base};
      });
  state->mcp_server = std::make_unique<mcp::McpServer>(
      *state->mcp_heaps, mcp::ServerLimits{options.sql_seconds, options.sql_max_rows});
  state->where = where;
  GOHEAP_TRY(auto http, HttpServer::listen(where.host, where.port, options.limits));
  state->where.port = http->port();
  // The policy names its cookie by the port, known only now; it is in place
  // before the first request is read.
  state->access.emplace(where.host, state->where.port, options.allowed_hosts, std::move(token));
  state->http = std::move(http);
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

void Server::serve(std::shared_ptr<const query::Session> session) {
  state_->publish(std::move(session));
}

void Server::setBase(std::string base_path) {
  std::lock_guard lock(state_->mu);
  state_->base_path = std::move(base_path);
}

namespace {

// Opening's phases become /api/status's; its warnings and notes go on to
// the caller's sink.
class StatusObserver : public Sink {
 public:
  using SetPhase = std::function<void(std::string, uint64_t)>;
  using Progress = std::function<void(uint64_t)>;
  StatusObserver(SetPhase set_phase, Progress progress, Sink& told)
      : set_phase_(std::move(set_phase)), progress_(std::move(progress)), told_(told) {}

  void beginPhase(std::string_view name, uint64_t total) override {
    set_phase_(std::string(name), total);
  }
  void progress(uint64_t done) override { progress_(done); }
  void warning(const std::string& text) override { told_.warning(text); }
  void note(const std::string& text) override { told_.note(text); }

 private:
  SetPhase set_phase_;
  Progress progress_;
  Sink& told_;
};

}  // namespace

void Server::loadInBackground(std::string heap_path, std::string exe_path, Sink& told,
                              std::function<void(const Error*)> on_loaded) {
  loadInBackground(query::Source::fromArgument(std::move(heap_path), std::move(exe_path)), told,
                   std::move(on_loaded));
}

void Server::loadInBackground(query::Source source, Sink& told,
                              std::function<void(const Error*)> on_loaded) {
  State* s = state_.get();
  s->loader = std::thread([s, source = std::move(source), &told, on_loaded = std::move(on_loaded)] {
    StatusObserver observer([s](std::string name, uint64_t total) { s->setPhase(name, total); },
                            [s](uint64_t done) {
                              std::lock_guard lock(s->mu);
                              s->phase_done = done;
                            },
                            told);
    const query::OpenOptions& options = s->open_options;
    auto failed = [&](const Error& e) {
      {
        std::lock_guard lock(s->mu);
        s->load_error = e.message();
      }
      if (on_loaded) on_loaded(&e);
    };
    auto session = query::open(source, observer, options);
    if (!session) return failed(session.error());
    if (!s->base_path.empty()) {
      auto base = query::open(query::Source::fromArgument(s->base_path, source.exe_path, "base"),
                              observer, options);
      if (!base) {
        return failed(
            Error(base.error().kind(), "base " + s->base_path + ": " + base.error().message()));
      }
      s->setPhase("index for queries (base)", 0);
      (*base)->prepareForServing();
      std::lock_guard lock(s->mu);
      s->base = base.take();
    }
    s->setPhase("index for queries", 0);
    s->publish(session.take());
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
