// A heap read from a URL: `goheap summary http://host:port/debug/heapdump`
// (the capture package's handler, capture/). The response is streamed to a
// temporary file, which is then opened like any dump or core.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "util/error.h"
#include "util/sink.h"
#include "util/temporary_file.h"

namespace goheap::acquire {

// Whether `text` names a URL goheap downloads ("http://..."), rather than a
// file. "https://" counts too, so that it is refused with a reason.
bool isHttpUrl(std::string_view text);

// What a download must be: a heap (a dump or a core: a web page at the wrong
// URL is refused at its first bytes) or an ELF file (a debug file from a
// debuginfod server).
enum class DownloadedKind : uint8_t { Heap, ElfFile };

struct DownloadOptions {
  DownloadedKind expect = DownloadedKind::Heap;
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
//
// Its phases go to `sink`: "request" until the server answers (the capture
// handler writes the whole dump before it does), then "download", whose
// total is the size the server announced (Content-Length; 0 for a chunked
// body), with the bytes received so far as its progress.
Expected<TemporaryFile> downloadHeap(std::string_view url, Sink& sink,
                                     const DownloadOptions& options = {});
// The same for any file of the kind options.expect says.
Expected<TemporaryFile> downloadFile(std::string_view url, Sink& sink,
                                     const DownloadOptions& options);

}  // namespace goheap::acquire
