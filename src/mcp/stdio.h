// `goheap mcp`: the MCP server over standard input and output, as MCP
// clients start a local server. One JSON-RPC message per line each way;
// stdout carries nothing else (progress and warnings go to the client as
// notifications, the server's own notes to stderr). Tool calls run on a few
// worker threads, so a slow question (dups of a big heap) does not hold up
// a quick one; everything else is answered as it is read. The server asks
// the client for its roots (roots/list) when it offers them, and again
// when they change; a call that comes meanwhile waits for them.
#pragma once

#include <string>

#include "mcp/heap_access.h"
#include "mcp/heap_pool.h"
#include "mcp/server.h"
#include "util/sink.h"

namespace goheap::mcp {

struct StdioOptions {
  AccessRules access;
  HeapPoolOptions heaps;
  ServerLimits limits;
  unsigned workers = 4;     // tool calls answered at once
  std::string working_dir;  // empty: the process's
  // A message longer than this is refused unread (and the line skipped).
  size_t max_message_bytes = size_t{16} << 20;
};

// Serves the client on `in_fd` and `out_fd` until `in_fd` ends (the client
// closed it), then lets the calls under way finish. The server's own notes
// (not the client's heaps' warnings, which go to the client) are told to
// `told`, for stderr.
void serveStdio(int in_fd, int out_fd, const StdioOptions& options, Sink& told);

}  // namespace goheap::mcp
