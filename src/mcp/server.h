// The Model Context Protocol server (protocol versions 2025-06-18 and
// 2025-11-25): JSON-RPC 2.0 messages in, answers out, whatever carries them.
// `goheap mcp` carries them over standard input and output (stdio.h),
// `goheap serve` over HTTP at /mcp. The tools are the question table's
// (tools.h); resources are docs/sql.md and docs/cli-json.md; prompts walk a
// model through an investigation.
//
// A tool's mistakes (a bad parameter, a file that is not there or may not
// be read, bad SQL) are tool results with isError, whose text is the
// command line's message, so a model can read it and try again; a malformed
// message is a JSON-RPC error. Nothing a client sends ends the server.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mcp/tools.h"
#include "query/session.h"
#include "util/error.h"
#include "util/json_reader.h"
#include "util/sink.h"

namespace goheap::mcp {

// The protocol versions spoken, newest first.
inline constexpr std::string_view kProtocolVersions[] = {"2025-11-25", "2025-06-18"};

// One request being answered, as its transport lets the server reach the
// client meanwhile.
struct CallContext {
  // Sends one JSON-RPC notification to the client; empty when the transport
  // cannot (a plain HTTP answer).
  std::function<void(const std::string& message)> notify;
  // The request's _meta.progressToken, as its JSON text; empty for none.
  std::string progress_token;
  // Set when the client cancels the request (notifications/cancelled).
  std::atomic<bool> cancelled{false};
};

// Where a tool call's heaps come from.
class HeapProvider {
 public:
  virtual ~HeapProvider() = default;
  virtual HeapChoice choice() const = 0;
  struct Heaps {
    std::shared_ptr<const query::Session> current;
    std::shared_ptr<const query::Session> base;  // null when the question takes none
  };
  // The heaps `arguments` name for `question`, opening them if need be
  // (each phase told to `sink`), or why not: an Error::needsInput for a
  // refusal or a mistake, another for a heap that cannot be read.
  virtual Expected<Heaps> heaps(const questions::Question& question, const ToolArguments& arguments,
                                Sink& sink) = 0;
};

struct ServerLimits {
  double sql_seconds = 30;            // each statement's time limit (as /api/sql)
  uint64_t sql_max_rows = 10000;      // rows a statement keeps at most
  size_t max_result_bytes = 1 << 20;  // a tool result's text and JSON together
};

class McpServer {
 public:
  McpServer(HeapProvider& heaps, ServerLimits limits) : heaps_(heaps), limits_(limits) {}

  // One message from the client. Returns what to send back: the response
  // to a request, or nothing for a notification or a response. Safe to call
  // from several threads at once.
  std::optional<std::string> handle(const JsonNode& message, CallContext& call);
  // The same from its text; text that is not JSON gets a parse error.
  std::optional<std::string> handleText(std::string_view text, CallContext& call);

  // Whether the client said at initialize that it offers roots/list.
  bool clientOffersRoots() const { return client_roots_.load(); }

 private:
  std::string initialize(const JsonNode& params);
  std::string listTools() const;
  std::string callTool(const JsonNode& params, CallContext& call);
  std::string listResources() const;
  Expected<std::string> readResource(const JsonNode& params) const;
  std::string listPrompts() const;
  Expected<std::string> getPrompt(const JsonNode& params) const;

  HeapProvider& heaps_;
  ServerLimits limits_;
  std::atomic<bool> client_roots_{false};
};

// JSON-RPC's error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;

// A JSON-RPC error response to the request `id` (its JSON text; "null"
// when it could not be read).
std::string errorResponse(std::string_view id, int code, std::string_view message);
// The JSON text of a message's id: "7", "\"a\"", or "null".
std::string idText(const JsonNode& message);
// The JSON text of a string or a number (an id, a progress token), as the
// client wrote it; "" for any other value.
std::string scalarText(const JsonNode& value);

}  // namespace goheap::mcp
