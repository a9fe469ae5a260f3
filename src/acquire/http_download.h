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
  // Called as bytes arrive: those so far, and the total the server
  // announced (Content-Length), 0 when it did not.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

// Downloads `url` into a new temporary file (util/temporary_file.h). An Error
// names the URL and what went wrong: a refused connection, a status other
// than 200 with the start of the server's answer (the capture handler's 429
// "another dump is being written"), a connection closed early.
Expected<TemporaryFile> downloadHeap(std::string_view url, const DownloadHooks& hooks);

}  // namespace goheap::acquire
