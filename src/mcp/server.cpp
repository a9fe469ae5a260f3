#include "mcp/server.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "mcp/output_schema.h"
#include "mcp/prompts.h"
#include "util/format.h"
#include "util/json_writer.h"
#include "util/version.h"
#include "web/web_assets.h"

namespace goheap::mcp {

namespace {

using questions::Question;

constexpr std::string_view kInstructions =
    "goheap reads the heap of a Go program (a heap dump from runtime/debug.WriteHeapDump, an "
    "ELF core file, or a running process) and tells what holds its memory and why. Start with "
    "summary; then top (what uses the memory, by type, site or shape), dom (what keeps it "
    "alive: retained sizes), suspects (leak suspects), goroutines (leaked=true: blocked "
    "forever), paths (why one object is alive, from a root), obj (one object's fields), dups "
    "and waste (duplicate and wasted memory), memory (the whole process's memory, cgo "
    "included), and diff (what grew since an earlier heap). sql answers anything else "
    "(schema and cookbook: resource goheap://docs/sql.md). Addresses are as Go prints them "
    "(0xc000123456). A heap opened once stays open: follow-up questions answer at once. Each "
    "result holds the text goheap prints and, as structuredContent, its --json document "
    "(fields: goheap://docs/cli-json.md).";

struct Resource {
  std::string_view uri, asset, name, title, description;
};
constexpr Resource kResources[] = {
    {"goheap://docs/sql.md", "/sql.md", "sql.md", "goheap SQL: the heap's tables and a cookbook",
     "The tables the sql tool reads (objects, refs, roots, goroutines, frames, globals, types, "
     "sites, fields, strings), their columns, and queries for common questions."},
    {"goheap://docs/cli-json.md", "/cli-json.md", "cli-json.md",
     "goheap's JSON answers, field by field",
     "Every field of every tool's structuredContent (the command line's --json), with its "
     "meaning and units."},
};

// What `write` writes, as one compact JSON text.
std::string written(const std::function<void(JsonWriter& w)>& write) {
  std::string out;
  JsonWriter w(out);
  write(w);
  return out;
}

std::string response(std::string_view id, std::string_view result) {
  return written([&](JsonWriter& w) {
    w.beginObject().field("jsonrpc", "2.0").key("id").rawValue(id).key("result").rawValue(result);
    w.endObject();
  });
}

// The text cut to at most `max` bytes at a line's end (or a character's),
// so that what is left reads whole.
std::string cutText(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t end = text.rfind('\n', max);
  if (end == std::string::npos || end < max / 2) {
    end = max;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) end--;
  } else {
    end++;
  }
  return text.substr(0, end);
}

// Opening's phases and the answer's progress, as notifications/progress to
// a client that asked for them (with a progressToken); its warnings kept
// for the result's text.
class ProgressSink final : public Sink {
 public:
  explicit ProgressSink(CallContext& call) : call_(call) {}
  ~ProgressSink() override { stopHeartbeat(); }

  bool wanted() const { return call_.notify && !call_.progress_token.empty(); }

  void beginPhase(std::string_view name, uint64_t total) override {
    std::lock_guard lock(mu_);
    phase_ = std::string(name);
    total_ = total;
    sendLocked(phase_);
  }
  void progress(uint64_t done) override {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(500)) return;
    std::string message = phase_;
    if (total_ > 0) {
      message += ": " + formatPercent(std::min(done, total_), total_);
    }
    sendLocked(message);
  }
  void warning(const std::string& text) override {
    std::lock_guard lock(mu_);
    warnings_.push_back(text);
  }
  std::vector<std::string> warnings() const {
    std::lock_guard lock(mu_);
    return warnings_;
  }

  // While the answer is computed, a notification every few seconds says
  // so: a client that resets its timeout on progress keeps waiting.
  void startHeartbeat(std::string what) {
    if (!wanted()) return;
    heartbeat_ = std::thread([this, what = std::move(what)] {
      const auto started = std::chrono::steady_clock::now();
      std::unique_lock lock(mu_);
      while (!stop_) {
        beating_.wait_for(lock, std::chrono::seconds(5));
        if (stop_) break;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        sendLocked(what + " (" + formatDuration(seconds) + ")");
      }
    });
  }
  void stopHeartbeat() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    beating_.notify_all();
    if (heartbeat_.joinable()) heartbeat_.join();
  }

 private:
  void sendLocked(const std::string& message) {
    if (!wanted()) return;
    last_ = std::chrono::steady_clock::now();
    std::string out;
    JsonWriter w(out);
    w.beginObject().field("jsonrpc", "2.0").field("method", "notifications/progress");
    w.key("params").beginObject().key("progressToken").rawValue(call_.progress_token);
    w.field("progress", ++count_).field("message", message).endObject().endObject();
    call_.notify(out);
  }

  CallContext& call_;
  mutable std::mutex mu_;
  std::string phase_;
  uint64_t total_ = 0;
  uint64_t count_ = 0;
  std::chrono::steady_clock::time_point last_{};
  std::vector<std::string> warnings_;
  std::thread heartbeat_;
  std::condition_variable beating_;
  bool stop_ = false;
};

// A tool result that says what went wrong, for the model to read.
std::string toolError(const Error& e) {
  std::string text = "goheap: " + e.message();
  std::string out;
  JsonWriter w(out);
  w.beginObject().key("content").beginArray();
  w.beginObject().field("type", "text").field("text", text).endObject();
  w.endArray().field("isError", true).endObject();
  return out;
}

}  // namespace

std::string errorResponse(std::string_view id, int code, std::string_view message) {
  std::string out;
  JsonWriter w(out);
  w.beginObject().field("jsonrpc", "2.0").key("id").rawValue(id.empty() ? "null" : id);
  w.key("error").beginObject().field("code", code).field("message", message).endObject();
  w.endObject();
  return out;
}

std::string scalarText(const JsonNode& value) {
  if (value.isNumber()) return value.numberText();
  if (!value.isString()) return {};
  return written([&](JsonWriter& w) { w.value(value.string()); });
}

std::string idText(const JsonNode& message) {
  const JsonNode* id = message.isObject() ? message.find("id") : nullptr;
  const std::string text = id != nullptr ? scalarText(*id) : std::string();
  return text.empty() ? "null" : text;
}

std::optional<std::string> McpServer::handleText(std::string_view text, CallContext& call) {
  Expected<JsonNode> message = readJson(text);
  if (!message) return errorResponse("null", kParseError, message.error().message());
  return handle(*message, call);
}

std::optional<std::string> McpServer::handle(const JsonNode& message, CallContext& call) {
  if (!message.isObject()) {
    return errorResponse("null", kInvalidRequest,
                         "a message must be a JSON object (batches are not part of the protocol "
                         "since 2025-06-18)");
  }
  const JsonNode* version = message.find("jsonrpc");
  const JsonNode* method = message.find("method");
  const JsonNode* id = message.find("id");
  const std::string id_text = idText(message);
  if (version == nullptr || !version->isString() || version->string() != "2.0") {
    return errorResponse(id_text, kInvalidRequest, "\"jsonrpc\" must be \"2.0\"");
  }
  if (method == nullptr) return std::nullopt;  // a response: the transport's business
  if (!method->isString()) return errorResponse(id_text, kInvalidRequest, "bad \"method\"");
  if (id == nullptr) return std::nullopt;  // a notification: nothing to answer
  if (!id->isString() && !(id->isNumber() && id->integer())) {
    return errorResponse("null", kInvalidRequest, "\"id\" must be a string or an integer");
  }
  static const JsonNode kNoParams;
  const JsonNode* found = message.find("params");
  const JsonNode& params = found != nullptr ? *found : kNoParams;
  if (!params.isNull() && !params.isObject()) {
    return errorResponse(id_text, kInvalidParams, "\"params\" must be an object");
  }
  const std::string& name = method->string();
  try {
    if (name == "initialize") return response(id_text, initialize(params));
    if (name == "ping") return response(id_text, "{}");
    if (name == "tools/list") return response(id_text, listTools());
    if (name == "tools/call") {
      const JsonNode* tool = params.find("name");
      if (tool == nullptr || !tool->isString()) {
        return errorResponse(id_text, kInvalidParams, "tools/call needs the tool's \"name\"");
      }
      if (findTool(tool->string()) == nullptr) {
        std::string list;
        for (const Question* q : toolQuestions())
          list += (list.empty() ? "" : ", ") + std::string(q->name);
        return errorResponse(id_text, kInvalidParams,
                             "unknown tool \"" + tool->string() + "\" (the tools: " + list + ")");
      }
      return response(id_text, callTool(params, call));
    }
    if (name == "resources/list") return response(id_text, listResources());
    if (name == "resources/templates/list") return response(id_text, "{\"resourceTemplates\":[]}");
    if (name == "resources/read") {
      Expected<std::string> read = readResource(params);
      if (!read) return errorResponse(id_text, -32002, read.error().message());
      return response(id_text, *read);
    }
    if (name == "prompts/list") return response(id_text, listPrompts());
    if (name == "prompts/get") {
      Expected<std::string> prompt = getPrompt(params);
      if (!prompt) return errorResponse(id_text, kInvalidParams, prompt.error().message());
      return response(id_text, *prompt);
    }
  } catch (const std::exception& e) {
    return errorResponse(id_text, -32603, std::string("internal error: ") + e.what());
  }
  return errorResponse(id_text, kMethodNotFound, "no method \"" + name + "\"");
}

std::string McpServer::initialize(const JsonNode& params) {
  std::string_view version = kProtocolVersions[0];
  if (const JsonNode* asked = params.find("protocolVersion"); asked && asked->isString()) {
    for (std::string_view v : kProtocolVersions) {
      if (asked->string() == v) version = v;
    }
  }
  const JsonNode* capabilities = params.find("capabilities");
  client_roots_ = capabilities != nullptr && capabilities->find("roots") != nullptr;
  std::string out;
  JsonWriter w(out);
  w.beginObject().field("protocolVersion", version);
  w.key("capabilities").beginObject();
  w.key("tools").beginObject().field("listChanged", false).endObject();
  w.key("resources").beginObject().field("listChanged", false).endObject();
  w.key("prompts").beginObject().field("listChanged", false).endObject();
  w.endObject();
  w.key("serverInfo")
      .beginObject()
      .field("name", "goheap")
      .field("title", "goheap: what holds a Go program's memory, and why")
      .field("version", goheapFullVersion())
      .endObject();
  w.field("instructions", kInstructions).endObject();
  return out;
}

std::string McpServer::listTools() const {
  return written([&](JsonWriter& w) {
    w.beginObject().key("tools").beginArray();
    for (const Question* q : toolQuestions()) writeTool(w, *q, heaps_.choice());
    w.endArray().endObject();
  });
}

std::string McpServer::callTool(const JsonNode& params, CallContext& call) {
  const Question& question = *findTool(params.find("name")->string());
  Expected<ToolArguments> arguments =
      readToolArguments(question, params.find("arguments"), heaps_.choice());
  if (!arguments) return toolError(arguments.error());
  // The parameters are checked before a heap is opened: a mistake is told
  // at once, not after minutes.
  auto asked = question.read(arguments->values);
  if (!asked) return toolError(asked.error());

  ProgressSink sink(call);
  Expected<HeapProvider::Heaps> opened = heaps_.heaps(question, *arguments, sink);
  if (!opened) return toolError(opened.error());
  const questions::Heaps heaps{*opened->current, opened->base.get(), limits_.sql_max_rows,
                               limits_.sql_seconds, &call.cancelled};
  sink.startHeartbeat("answering " + std::string(question.name));
  // The JSON and the text, one string: "JSON\0TEXT" (JSON holds no NUL).
  const auto compute = [&]() -> Expected<std::string> {
    GOHEAP_TRY(std::unique_ptr<const questions::Answer> answer, (*asked)->answer(heaps));
    std::string both = compactJson(answer->json());
    both += '\0';
    both += answer->text({});
    for (const std::string& warning : answer->warnings()) both += "warning: " + warning + "\n";
    return both;
  };
  // A costly answer (suspects, dups, waste, diff) is kept with the heap, as
  // goheap serve keeps it, under its parameters as read and the base it
  // was asked against: asked again, it answers at once.
  Expected<std::string> both = Error("not answered");
  if (question.kept) {
    const std::string key = questions::answerKey(question, arguments->values) + "\nmcp base " +
                            arguments->base + "\n" + arguments->executable;
    Expected<std::shared_ptr<const std::string>> kept = opened->current->answer(key, compute);
    both = kept ? Expected<std::string>(**kept) : Expected<std::string>(kept.error());
  } else {
    both = compute();
  }
  sink.stopHeartbeat();
  if (!both) return toolError(both.error());
  const size_t split = both->find('\0');
  std::string json = both->substr(0, split);
  std::string text = both->substr(split + 1);
  for (const auto* s : {opened->current.get(), opened->base.get()}) {
    if (s == nullptr) continue;
    if (Status st = s->checkFilesUnchanged(); !st) {
      return toolError(Error("the heap changed on disk while it was read (" + st.error().message() +
                             "): ask again to read it anew"));
    }
  }
  for (const std::string& warning : sink.warnings()) text += "warning: " + warning + "\n";

  // A result holds at most max_result_bytes. Past that it is an error
  // (a client checks a result's structuredContent against the tool's
  // outputSchema, and there is none to give): the text cut, with a note
  // on how to ask for less.
  const bool fits = text.size() + json.size() <= limits_.max_result_bytes;
  if (!fits) {
    const std::string note =
        "\n[goheap: the answer is " + formatBytes(text.size() + json.size()) +
        " (text and JSON), more than the " + formatBytes(limits_.max_result_bytes) +
        " a result may hold, so it is cut" +
        (text.size() > limits_.max_result_bytes - 1024 ? " above" : " (the text above is whole)") +
        " and its JSON form is left out. Ask for less to see it whole: a lower limit or depth, a "
        "filter, or a narrower SQL query (WHERE, LIMIT).]\n";
    text = cutText(text, limits_.max_result_bytes - 1024) + note;
  }
  return written([&](JsonWriter& w) {
    w.beginObject().key("content").beginArray();
    w.beginObject().field("type", "text").field("text", text).endObject().endArray();
    if (fits) w.key("structuredContent").rawValue(json);
    w.field("isError", !fits).endObject();
  });
}

// The JSON schemas of the tools' answers (output_schema.h), one resource
// each: goheap://schemas/top.json.
constexpr std::string_view kSchemaPrefix = "goheap://schemas/";

std::string McpServer::listResources() const {
  return written([&](JsonWriter& w) {
    w.beginObject().key("resources").beginArray();
    for (const Resource& r : kResources) {
      w.beginObject()
          .field("uri", r.uri)
          .field("name", r.name)
          .field("title", r.title)
          .field("description", r.description)
          .field("mimeType", "text/markdown")
          .endObject();
    }
    for (const Question* q : toolQuestions()) {
      if (!outputSchema(q->name)) continue;
      const std::string name = std::string(q->name) + ".json";
      w.beginObject()
          .field("uri", std::string(kSchemaPrefix) + name)
          .field("name", name)
          .field("title", "The JSON Schema of the " + std::string(q->name) + " tool's answer")
          .field("description", "Its outputSchema: the fields of goheap " + std::string(q->name) +
                                    " --json, as docs/cli-json.md describes them.")
          .field("mimeType", "application/schema+json")
          .endObject();
    }
    w.endArray().endObject();
  });
}

Expected<std::string> McpServer::readResource(const JsonNode& params) const {
  const JsonNode* uri = params.find("uri");
  if (uri == nullptr || !uri->isString()) return Error("resources/read needs a \"uri\"");
  const auto contents = [&](std::string_view mime, std::string_view text) {
    return written([&](JsonWriter& w) {
      w.beginObject().key("contents").beginArray().beginObject();
      w.field("uri", uri->string()).field("mimeType", mime).field("text", text);
      w.endObject().endArray().endObject();
    });
  };
  if (std::string_view name = uri->string();
      name.starts_with(kSchemaPrefix) && name.ends_with(".json")) {
    name = name.substr(kSchemaPrefix.size(), name.size() - kSchemaPrefix.size() - 5);
    const Question* q = findTool(name);
    std::optional<std::string> schema = q != nullptr ? outputSchema(q->name) : std::nullopt;
    if (schema) return contents("application/schema+json", *schema);
  }
  for (const Resource& r : kResources) {
    if (r.uri != uri->string()) continue;
    for (const web::WebAsset& a : web::webAssets()) {
      if (a.path != r.asset) continue;
      return contents(
          "text/markdown",
          std::string_view(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size()));
    }
  }
  return Error("no resource \"" + uri->string() + "\" (resources/list lists them)");
}

std::string McpServer::listPrompts() const {
  return written([&](JsonWriter& w) {
    w.beginObject().key("prompts").beginArray();
    for (const Prompt& p : prompts(heaps_.choice())) {
      w.beginObject()
          .field("name", p.name)
          .field("title", p.title)
          .field("description", p.description);
      w.key("arguments").beginArray();
      for (const PromptArgument& a : p.arguments) {
        w.beginObject().field("name", a.name).field("description", a.description);
        w.field("required", a.required).endObject();
      }
      w.endArray().endObject();
    }
    w.endArray().endObject();
  });
}

Expected<std::string> McpServer::getPrompt(const JsonNode& params) const {
  const JsonNode* name = params.find("name");
  if (name == nullptr || !name->isString()) return Error("prompts/get needs the prompt's \"name\"");
  for (const Prompt& p : prompts(heaps_.choice())) {
    if (p.name != name->string()) continue;
    std::vector<std::pair<std::string, std::string>> given;
    if (const JsonNode* args = params.find("arguments"); args != nullptr && args->isObject()) {
      for (const auto& [key, value] : args->object()) {
        if (value.isString()) given.emplace_back(key, value.string());
      }
    }
    GOHEAP_TRY(std::string text, renderPrompt(p, given));
    std::string out;
    JsonWriter w(out);
    w.beginObject().field("description", p.description).key("messages").beginArray();
    w.beginObject().field("role", "user").key("content").beginObject();
    w.field("type", "text").field("text", text).endObject().endObject();
    w.endArray().endObject();
    return out;
  }
  return Error("no prompt \"" + name->string() + "\" (prompts/list lists them)");
}

}  // namespace goheap::mcp
