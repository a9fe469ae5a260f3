// Debug files from debuginfod servers (elfutils' debuginfod and the public
// ones distributions run): `GET URL/buildid/HEXID/debuginfo` answers the
// separate debug file of the build whose GNU build ID is HEXID. The URLs
// come from DEBUGINFOD_URLS, read by the front end, never here. A file
// fetched is kept in a folder of its own under goheap's cache folder, by
// build ID, and found there the next time without asking.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "acquire/http_download.h"
#include "util/error.h"
#include "util/sink.h"

namespace goheap::acquire {

// The URLs in DEBUGINFOD_URLS's value: separated by spaces (and any other
// white space), empty words dropped.
std::vector<std::string> debuginfodUrls(std::string_view value);

// The file a debug file of `build_id` is kept as under `store_dir`:
// STORE/BUILD_ID/debuginfo.
std::string debuginfodStorePath(const std::string& store_dir, std::string_view build_id);

struct DebuginfodFetch {
  std::string path;  // the debug file, under the store folder
  std::string url;   // where it was downloaded from; empty when already kept
};

// The debug file of `build_id` (lower-case hex): the one kept under
// `store_dir` when there, else asked of each of `urls` in turn and kept
// there. The download's phases ("request", "download") go to `sink`; a
// server that answers 404 does not have it and the next is asked. An Error
// when none has it, saying what each answered; https:// URLs are refused
// with a reason (goheap speaks plain HTTP only). `check`, when given, is
// asked of the downloaded file before it is kept: its reason refuses it.
Expected<DebuginfodFetch> fetchDebugFile(
    std::string_view build_id, std::span<const std::string> urls, const std::string& store_dir,
    Sink& sink, const std::function<std::string(const std::string& path)>& check = {},
    const DownloadOptions& options = {});

}  // namespace goheap::acquire
