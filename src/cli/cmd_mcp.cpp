// goheap mcp: goheap as a Model Context Protocol server over standard input
// and output, for AI assistants (mcp/stdio.h). Its tools are the questions
// of the command line, its answers the commands' text and JSON.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli/command.h"
#include "cli/progress.h"
#include "mcp/stdio.h"

namespace goheap::cli {

namespace {

CommandSpec mcpSpec() {
  CommandSpec spec(
      "mcp",
      "Serves goheap's questions to an AI assistant over the Model Context Protocol (MCP, "
      "versions 2025-06-18 and 2025-11-25), on standard input and output: an MCP client starts "
      "`goheap mcp` and talks to it. Each question of the command line (summary, top, dom, "
      "paths, obj, goroutines, suspects, diff, dups, waste, sql, memory) is a tool that takes "
      "the heap as `source` (a dump or core path, an http:// URL, or pid:PID), `executable`, "
      "and the command's flags by their long names; its result holds the command's text and, "
      "as structuredContent, its --json document. Heaps stay open between calls (the least "
      "recently used go first past --heap-memory), and the index cache makes a reopen fast.\n\n"
      "What a model asks for may come from text an attacker wrote, so goheap reads files only "
      "under the client's roots (its working directory when the client declares none) and "
      "the --allow-dir folders, http:// URLs only on loopback or under an --allow-url prefix, "
      "and a running process only with --allow-pid. SQL only reads, and stops at its time and "
      "row limits. README.md shows how to add goheap to Claude Code, VS Code and Cursor.");
  spec.flag("allow-dir", "DIR", "also read heaps and executables under DIR").repeatable();
  spec.flag("allow-url", "PREFIX",
            "also read heaps from http:// URLs that start with PREFIX, like "
            "http://10.0.0.5:6060/; loopback URLs are always allowed")
      .repeatable();
  spec.boolFlag("allow-pid",
                "let a tool snap a running process (source pid:PID): it is paused while its "
                "memory is copied");
  spec.sizeFlag("heap-memory",
                "memory the open heaps may take, by estimate; the least recently used are "
                "closed first",
                "8G");
  addSqlLimitFlags(spec, "the sql tool");
  spec.flag("live-seconds", "SECONDS",
            "how long a heap read from a running program (a URL, pid:PID) is kept before a "
            "question takes a new one")
      .kind(ValueKind::Uint)
      .defaultValue("60");
  addCacheFlags(spec);
  spec.example("claude mcp add goheap -- goheap mcp --allow-dir /var/tmp/dumps",
               "add goheap to Claude Code, reading dumps in the project and /var/tmp/dumps");
  spec.example("goheap mcp --allow-url http://10.0.0.5:6060/ --allow-pid",
               "also a service's heap from the capture package on another host, and local "
               "processes by pid");
  return spec;
}

}  // namespace

int runMcp(int argc, const char* const* argv) {
  return runParsed(mcpSpec(), argc, argv, [](const ParsedArgs& args) {
    if (isatty(STDIN_FILENO)) {
      std::fprintf(stderr,
                   "goheap mcp: serving MCP on standard input and output; an MCP client starts "
                   "it (goheap mcp --help shows how). Ctrl-D ends it.\n");
    }
    mcp::StdioOptions options;
    for (const std::string& dir : args.getStrings("allow-dir")) {
      options.access.allowed_dirs.push_back(dir);
    }
    for (const std::string& prefix : args.getStrings("allow-url")) {
      options.access.url_prefixes.push_back(prefix);
    }
    options.access.allow_pid = args.getBool("allow-pid");
    options.heaps.open = openOptions(args);
    options.heaps.open.answer_cache_bytes = uint64_t{256} << 20;
    options.heaps.max_bytes = args.getUint("heap-memory");
    options.heaps.live_seconds = static_cast<double>(args.getUint("live-seconds"));
    Expected<SqlLimitFlags> sql = sqlLimitFlags(args);
    if (!sql) return fail(sql.error(), kExitUsage);
    options.limits.sql_seconds = sql->seconds;
    options.limits.sql_max_rows = sql->max_rows;
    WarningsOnStderr told("goheap mcp");
    mcp::serveStdio(STDIN_FILENO, STDOUT_FILENO, options, told);
    return kExitOk;
  });
}

}  // namespace goheap::cli
