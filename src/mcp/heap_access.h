// What an MCP client may have goheap read. The text a model sends can be
// written by whoever wrote what the model read, so a tool's `source`,
// `executable` and `base` are checked here before anything is opened:
//  - files only under the client's roots (MCP roots) when it declares any,
//    else under the server's working directory, and under the --allow-dir
//    folders; symbolic links are resolved first, so a link cannot lead out;
//  - http:// URLs only on loopback or under an --allow-url prefix (a heap
//    dump request stops the serving process's world, and a URL must not let
//    a model reach any host);
//  - a running process (pid:PID) only when the server started with
//    --allow-pid.
// Each refusal says which flag would allow it.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/open.h"
#include "util/error.h"

namespace goheap::mcp {

struct AccessRules {
  std::vector<std::string> allowed_dirs = {};  // --allow-dir
  std::vector<std::string> url_prefixes = {};  // --allow-url
  bool allow_pid = false;                      // --allow-pid
};

class HeapAccess {
 public:
  // `working_dir`: what relative paths are read against, and the one root
  // of a client that declares none.
  HeapAccess(AccessRules rules, std::string working_dir);

  // The client's roots, as the file:// URIs of roots/list (those of other
  // schemes are left out). Replaces the ones before; std::nullopt: the
  // client declares none.
  void setRoots(const std::optional<std::vector<std::string>>& uris);
  // The folders files may be read from now, for messages and tests.
  std::vector<std::string> readableDirs() const;

  // The heap `text` names (a path, an http:// URL, pid:PID) with its
  // executable, as query::open takes them, or the refusal (an
  // Error::needsInput naming `parameter`).
  Expected<query::Source> source(std::string_view text, std::string_view executable,
                                 std::string label, std::string_view parameter) const;

 private:
  Expected<std::string> file(std::string_view path, std::string_view parameter) const;
  Expected<std::string> url(std::string_view text, std::string_view parameter) const;

  AccessRules rules_;
  std::string working_dir_;
  mutable std::mutex mu_;
  std::vector<std::string> roots_;  // resolved folders; empty: the working directory
};

// The local path of a file:// URI ("file:///home/a%20b" is "/home/a b"),
// else nothing (another scheme, another host, a bad escape).
std::optional<std::string> pathOfFileUri(std::string_view uri);

}  // namespace goheap::mcp
