// goheap serve HEAP [EXE]: the analyses over HTTP, for the web UI and for
// scripts: a JSON API whose answers are the commands' --json documents
// (docs/web-api.md), and the web pages compiled into the binary.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

#include "cli/command.h"
#include "cli/progress.h"
#include "serve/server.h"
#include "util/format.h"

namespace goheap::cli {

namespace {

CommandSpec serveSpec() {
  CommandSpec spec(
      "serve",
      "Serves the heap over HTTP: the web UI at / and a JSON API under /api/ that "
      "answers the questions of summary, top, dom, paths, obj and goroutines with the same "
      "JSON their --json prints (docs/web-api.md). The server listens at once and loads "
      "the dump in the background; /api/status tells how far loading got. Stop it with "
      "Ctrl-C.\n\n"
      "The API shows everything in the dump (strings, keys, tokens) to whoever can ask, so "
      "it listens on the loopback address and answers only requests addressed to this "
      "machine (a Host header of localhost, 127.0.0.1 or [::1]; --allow-host adds a name). "
      "To listen beyond it, add --allow-remote: goheap then prints a URL with a random "
      "access token, and every request must carry it (the page keeps it in a cookie).");
  spec.positional("HEAP",
                  "the program's heap: a heap dump written by runtime/debug.WriteHeapDump, a "
                  "core file, or an http:// URL that serves a dump (the capture package's "
                  "/debug/heapdump), "
                  "downloaded once; left out with --pid")
      .optional();
  spec.positional("EXE",
                  "the program's executable (the same build the heap came from): Go types, "
                  "named globals, frames with file:line")
      .optional();
  addPidFlag(spec);
  spec.flag("http", "HOST:PORT", "where to listen; port 0 picks a free port")
      .defaultValue("127.0.0.1:8080");
  spec.boolFlag("allow-remote",
                "allow --http to listen beyond loopback (0.0.0.0, a LAN address); every "
                "request must then carry the access token in the printed URL");
  spec.flag("allow-host", "NAME",
            "also answer requests whose Host header is NAME (a name of this machine that a "
            "proxy or /etc/hosts gives it; with :PORT, only that port)")
      .repeatable();
  spec.sizeFlag("answer-cache",
                "memory for the answers kept of suspects, dups, waste and diff (the least "
                "recently asked go first); 0 keeps none",
                "256M");
  spec.flag("base", "OLD",
            "an earlier dump of the same program (a file or an http:// URL): the Diff page "
            "and /api/diff compare HEAP with it (EXE applies to both)")
      .defaultValue("");
  addSqlLimitFlags(spec, "the Query page, /api/sql and /mcp's sql tool");
  spec.sizeFlag("sql-memory",
                "what SQLite may allocate for all SQL queries together (sorts, groups); a "
                "query that needs more fails",
                "1G");
  addCacheFlags(spec);
  spec.example("goheap serve heap.dump", "open http://127.0.0.1:8080/ in a browser");
  spec.example("goheap serve --pid 4242",
               "a running process: snapped to a temporary core (deleted when serve stops)");
  spec.example("goheap serve heap.dump ./server --http 127.0.0.1:0",
               "with the executable, on a free port (printed on stderr)");
  spec.example("goheap serve after.dump ./server --base before.dump",
               "with a Diff page: what grew since before.dump, and what holds it");
  spec.example("goheap serve http://127.0.0.1:6060/debug/heapdump ./server --base before.dump",
               "a running service's heap now (the capture package), against an earlier dump");
  spec.example("curl 'http://127.0.0.1:8080/api/top?by=site&n=5'",
               "the API from a script: the 5 allocation sites retaining most");
  spec.example(
      "curl -G http://127.0.0.1:8080/api/sql --data-urlencode "
      "'q=SELECT type, count(*) FROM objects GROUP BY type ORDER BY 2 DESC LIMIT 5'",
      "SQL over the heap from a script (read-only)");
  spec.example("goheap serve heap.dump --http 0.0.0.0:8080 --allow-remote",
               "on every interface, for a colleague: open the printed URL with its ?token=");
  spec.example("goheap serve heap.dump --allow-host heapbox.internal",
               "behind a proxy or an /etc/hosts name that points at 127.0.0.1");
  spec.example("goheap serve big.dump --answer-cache 1G",
               "keep more of the slow answers (suspects, dups, waste, diff) in memory");
  return spec;
}

// Every connection takes a file descriptor: raise the soft limit (often
// 1024 itself) to make room for the server's cap on connections, within
// the hard limit. Beyond it, accepting waits until a descriptor is free.
void makeRoomForConnections(size_t connections) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = static_cast<rlim_t>(connections) + 256;  // + the files it reads
  if (limit.rlim_cur >= wanted) return;
  limit.rlim_cur = std::min(wanted, limit.rlim_max);
  ::setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

int runServe(int argc, const char* const* argv) {
  return runParsed(serveSpec(), argc, argv, [](const ParsedArgs& args) {
    Expected<serve::HostPort> where = serve::parseHostPort(args.getString("http"));
    if (!where) return fail(args.usageError(where.error().message()), kExitUsage);
    serve::ServeOptions options;
    options.allow_remote = args.getBool("allow-remote");
    if (Status st = serve::checkListenAddress(*where, options.allow_remote); !st) {
      return fail(args.usageError(st.error().message()), kExitUsage);
    }
    if (args.has("allow-host")) {
      const auto hosts = args.getStrings("allow-host");
      options.allowed_hosts.assign(hosts.begin(), hosts.end());
    }
    options.answer_cache_bytes = args.getUint("answer-cache");
    Expected<SqlLimitFlags> sql = sqlLimitFlags(args);
    if (!sql) return fail(sql.error(), kExitUsage);
    options.sql_seconds = sql->seconds;
    options.sql_max_rows = sql->max_rows;
    options.sql_memory_bytes = args.getUint("sql-memory");
    options.open = openOptions(args);
    makeRoomForConnections(options.limits.max_connections);

    Expected<query::Source> source = sourceFromArgs(args);
    if (!source) return fail(source.error(), kExitUsage);
    // Declared before the server, which tells it from its loading thread
    // until it stops.
    WarningsOnStderr told;
    auto server = serve::Server::start(*where, options);
    if (!server) return fail(server.error());
    // Tests and scripts read the port (and the token) from this line.
    std::fprintf(stderr, "goheap: serving %s\n", (*server)->url().c_str());
    std::fflush(stderr);

    const std::string heap_path = source->describe();
    if (!args.getString("base").empty()) (*server)->setBase(std::string(args.getString("base")));
    (*server)->loadInBackground(*source, told, [heap_path](const Error* failure) {
      // The server keeps answering (/api/status says what failed), so a
      // browser already open shows the reason.
      if (failure != nullptr) {
        std::fprintf(stderr, "goheap: %s\n", failure->message().c_str());
      } else {
        std::fprintf(stderr, "goheap: loaded %s\n", heap_path.c_str());
      }
    });
    (*server)->wait();
    return kExitOk;
  });
}

}  // namespace goheap::cli
