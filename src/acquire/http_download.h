// A heap read from a URL: `goheap summary http://host:port/debug/heapdump`
// (the capture package's handler, capture/). The response is streamed to a
// temporary file, which is then opened like any dump or core.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "util/error.h"
#include "util/temporary_file.h"

namespace goheap::acquire {

// Whether `text` names a URL goheap downloads ("http://..."), rather than a
// file. "https://" counts too, so that it is refused with a reason.
bool isHttpUrl(std::string_view text);

struct DownloadHooks {
  // Called once the server has answered 200, before the body, with the size
  // it announced (Content-Length), 0 when it did not (a chunked body).
  std::function<void(uint64_t total)> receiving;
  // Called as bytes arrive: those so far, and the total the server
  // announced (Content-Length), 0 when it did not.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct DownloadOptions {
  // How long to wait for the answer's header after the request. The capture
  // handler writes the whole dump to a file before it answers, with the
  // world stopped: about 3 s per GiB of heap.
  double answer_seconds = 600;
  // How long the body (and connecting) may go without a byte before the
  // download is given up: a server that stopped sending.
  double idle_seconds = 60;
  // Redirects followed (to http:// URLs only) before giving up.
  int max_redirects = 5;
};

// Downloads `url` into a new temporary file (util/temporary_file.h). An Error
// names the URL and what went wrong: a refused connection, a host that does
// not resolve, a status other than 200 with the start of the server's answer
// (the capture handler's 429 "another heap dump is being written"), a
// connection closed early, a server that stopped sending, an answer that is
// no heap dump or core. A URL goheap does not read (https://, credentials, a
// bad port) is an Error::needsInput.
Expected<TemporaryFile> downloadHeap(std::string_view url, const DownloadHooks& hooks,
                                     const DownloadOptions& options = {});

}  // namespace goheap::acquire
