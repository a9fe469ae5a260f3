#include "mcp/stdio.h"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "util/json_writer.h"

namespace goheap::mcp {

namespace {

using questions::Question;

// Whether the server knows the client's roots yet.
enum class RootsState : uint8_t { NotOffered, Asked, Known };

class StdioSession;

// The heaps a call names, checked against the access rules, then opened
// (or found open) in the pool.
class PoolHeapProvider final : public HeapProvider {
 public:
  PoolHeapProvider(StdioSession& session, HeapAccess& access, HeapPool& pool)
      : session_(session), access_(access), pool_(pool) {}
  HeapChoice choice() const override { return HeapChoice::FromArguments; }
  Expected<Heaps> heaps(const Question& question, const ToolArguments& arguments,
                        Sink& sink) override;

 private:
  StdioSession& session_;
  HeapAccess& access_;
  HeapPool& pool_;
};

class StdioSession {
 public:
  StdioSession(int out_fd, const StdioOptions& options, Sink& told)
      : out_fd_(out_fd),
        told_(told),
        access_(options.access, options.working_dir.empty()
                                    ? std::filesystem::current_path().string()
                                    : options.working_dir),
        pool_(options.heaps),
        provider_(*this, access_, pool_),
        server_(provider_, options.limits) {
    for (unsigned i = 0; i < std::max(1u, options.workers); i++) {
      workers_.emplace_back([this] { work(); });
    }
  }

  // Lets the calls under way finish and their answers go out.
  ~StdioSession() {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    queued_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void receive(std::string_view line);
  // Says a message could not be read (no id to answer: JSON-RPC's null).
  void refuse(const std::string& why) { send(errorResponse("null", kInvalidRequest, why)); }

  // A call about files waits for the roots the client was asked for (at
  // most 10 s: a client that never answers gets the working directory).
  void waitForRoots() {
    std::unique_lock lock(mu_);
    roots_known_.wait_for(lock, std::chrono::seconds(10),
                          [this] { return roots_ != RootsState::Asked; });
  }

 private:
  void send(const std::string& message) {
    std::string line = message + "\n";
    std::lock_guard lock(out_mu_);
    size_t written = 0;
    while (written < line.size()) {
      const ssize_t n = ::write(out_fd_, line.data() + written, line.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the client is gone; reading ends soon
      written += static_cast<size_t>(n);
    }
  }

  void askForRoots() {
    std::string request;
    {
      std::lock_guard lock(mu_);
      roots_ = RootsState::Asked;
      roots_request_ = "\"goheap-roots-" + std::to_string(++roots_asked_) + "\"";
      JsonWriter w(request);
      w.beginObject().field("jsonrpc", "2.0").key("id").rawValue(roots_request_);
      w.field("method", "roots/list").endObject();
    }
    send(request);
  }

  // The client's answer to roots/list.
  void takeRoots(const JsonNode& message) {
    std::optional<std::vector<std::string>> uris;
    if (const JsonNode* result = message.find("result"); result != nullptr) {
      if (const JsonNode* roots = result->find("roots"); roots != nullptr && roots->isArray()) {
        uris.emplace();
        for (const JsonNode& r : roots->array()) {
          if (const JsonNode* uri = r.find("uri"); uri != nullptr && uri->isString()) {
            uris->push_back(uri->string());
          }
        }
      }
    }
    if (!uris)
      told_.note(
          "the client did not list its roots: files are read from the working "
          "directory and the --allow-dir folders");
    access_.setRoots(uris);
    std::lock_guard lock(mu_);
    roots_ = RootsState::Known;
    roots_known_.notify_all();
  }

  void work() {
    for (;;) {
      std::shared_ptr<Call> call;
      {
        std::unique_lock lock(mu_);
        queued_.wait(lock, [this] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;
        call = std::move(queue_.front());
        queue_.pop_front();
      }
      std::optional<std::string> answer = server_.handle(call->message, call->context);
      {
        std::lock_guard lock(mu_);
        running_.erase(call->id);
      }
      // A cancelled request gets no answer (the protocol says so).
      if (answer && !call->context.cancelled) send(*answer);
    }
  }

  struct Call {
    std::string id;
    JsonNode message;
    CallContext context;
  };

  int out_fd_;
  Sink& told_;
  HeapAccess access_;
  HeapPool pool_;
  PoolHeapProvider provider_;
  McpServer server_;
  std::mutex out_mu_;

  std::mutex mu_;
  std::condition_variable queued_;
  std::deque<std::shared_ptr<Call>> queue_;
  std::map<std::string, std::shared_ptr<Call>> running_;  // by id text, queued or running
  bool closing_ = false;
  RootsState roots_ = RootsState::NotOffered;
  std::condition_variable roots_known_;
  std::string roots_request_;
  uint64_t roots_asked_ = 0;
  std::vector<std::thread> workers_;  // last: they use the members above
};

Expected<HeapProvider::Heaps> PoolHeapProvider::heaps(const Question& question,
                                                      const ToolArguments& arguments, Sink& sink) {
  session_.waitForRoots();
  const bool two = !arguments.base.empty();
  GOHEAP_TRY(query::Source current,
             access_.source(arguments.source, arguments.executable, two ? "NEW" : "", "source"));
  Heaps out;
  if (two) {
    GOHEAP_TRY(query::Source base,
               access_.source(arguments.base, arguments.executable, "OLD", "base"));
    GOHEAP_TRY(out.base, pool_.open(base, sink));
  }
  GOHEAP_TRY(out.current, pool_.open(current, sink));
  if (needsBase(question) && !out.base) {
    return Error::needsInput("missing parameter \"base\"").atParameter("base");
  }
  return out;
}

void StdioSession::receive(std::string_view line) {
  Expected<JsonNode> parsed = readJson(line);
  if (!parsed) {
    send(errorResponse("null", kParseError, parsed.error().message()));
    return;
  }
  const JsonNode& message = *parsed;
  const JsonNode* method = message.isObject() ? message.find("method") : nullptr;
  const std::string id = idText(message);
  if (method == nullptr && message.isObject()) {
    // A response to the server's own request: roots/list is the only one.
    bool roots = false;
    {
      std::lock_guard lock(mu_);
      roots = id == roots_request_;
    }
    if (roots) takeRoots(message);
    return;
  }
  const std::string name = method != nullptr && method->isString() ? method->string() : "";
  if (name == "notifications/cancelled") {
    const JsonNode* params = message.find("params");
    const JsonNode* request = params != nullptr ? params->find("requestId") : nullptr;
    if (request == nullptr) return;
    const std::string key = scalarText(*request);
    std::lock_guard lock(mu_);
    if (auto it = running_.find(key); it != running_.end()) it->second->context.cancelled = true;
    return;
  }
  if (name == "notifications/initialized" || name == "notifications/roots/list_changed") {
    if (server_.clientOffersRoots()) askForRoots();
    return;
  }
  if (name == "tools/call" && message.find("id") != nullptr && id != "null") {
    auto call = std::make_shared<Call>();
    call->id = id;
    call->message = message;
    call->context.notify = [this](const std::string& m) { send(m); };
    if (const JsonNode* params = message.find("params"); params != nullptr) {
      const JsonNode* meta = params->find("_meta");
      const JsonNode* token = meta != nullptr ? meta->find("progressToken") : nullptr;
      if (token != nullptr) call->context.progress_token = scalarText(*token);
    }
    {
      std::lock_guard lock(mu_);
      running_[id] = call;
      queue_.push_back(std::move(call));
    }
    queued_.notify_one();
    return;
  }
  CallContext context;
  std::optional<std::string> answer = server_.handle(message, context);
  if (name == "initialize" && server_.clientOffersRoots()) {
    std::lock_guard lock(mu_);
    roots_ = RootsState::Asked;  // asked once the client says it is initialized
  }
  if (answer) send(*answer);
}

}  // namespace

void serveStdio(int in_fd, int out_fd, const StdioOptions& options, Sink& told) {
  StdioSession session(out_fd, options, told);
  std::string buffer;
  bool skipping = false;  // the rest of a line over the limit
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(in_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t end; (end = buffer.find('\n', start)) != std::string::npos; start = end + 1) {
      std::string_view line(buffer.data() + start, end - start);
      if (skipping) {
        skipping = false;
        continue;
      }
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      session.receive(line);
    }
    buffer.erase(0, start);
    if (buffer.size() > options.max_message_bytes) {
      session.refuse("a message longer than " + std::to_string(options.max_message_bytes) +
                     " bytes was refused unread");
      buffer.clear();
      skipping = true;
    }
  }
}

}  // namespace goheap::mcp
