#include "acquire/debuginfod.h"

#include <unistd.h>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace goheap::acquire {

namespace {

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

// Moves the downloaded `from` to `to`, through a file beside `to` and a
// rename, so that a reader never sees half a file; across file systems
// ($TMPDIR elsewhere) by a copy.
Status keep(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(to).parent_path(), ec);
  if (ec) {
    return Error::io("cannot create the folder of " + to + ": " + ec.message());
  }
  const std::string part = to + ".part-" + std::to_string(::getpid());
  std::filesystem::rename(from, part, ec);
  if (ec) {
    ec.clear();
    std::filesystem::copy_file(from, part, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) {
      std::filesystem::remove(part, ec);
      return Error::io("cannot write " + part + ": " + ec.message());
    }
  }
  std::filesystem::rename(part, to, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(part, ignored);
    return Error::io("cannot write " + to + ": " + ec.message());
  }
  return Status::success();
}

}  // namespace

std::vector<std::string> debuginfodUrls(std::string_view value) {
  std::vector<std::string> urls;
  size_t at = 0;
  while (at < value.size()) {
    while (at < value.size() && std::isspace(static_cast<unsigned char>(value[at]))) ++at;
    size_t end = at;
    while (end < value.size() && !std::isspace(static_cast<unsigned char>(value[end]))) ++end;
    if (end > at) urls.emplace_back(value.substr(at, end - at));
    at = end;
  }
  return urls;
}

std::string debuginfodStorePath(const std::string& store_dir, std::string_view build_id) {
  std::string out = store_dir;
  if (!out.empty() && out.back() != '/') out += '/';
  out.append(build_id).append("/debuginfo");
  return out;
}

Expected<DebuginfodFetch> fetchDebugFile(
    std::string_view build_id, std::span<const std::string> urls, const std::string& store_dir,
    Sink& sink, const std::function<std::string(const std::string&)>& check,
    const DownloadOptions& options) {
  const std::string kept = debuginfodStorePath(store_dir, build_id);
  std::error_code ec;
  if (!store_dir.empty() && std::filesystem::is_regular_file(kept, ec)) {
    if (!check || check(kept).empty()) return DebuginfodFetch{kept, {}};
    std::filesystem::remove(kept, ec);  // not this build's after all: ask again
  }
  if (urls.empty())
    return Error::needsInput("no debuginfod server given (DEBUGINFOD_URLS is empty)");

  std::vector<std::string> answers;
  for (const std::string& base : urls) {
    if (startsWithNoCase(base, "https://")) {
      answers.push_back(base +
                        ": goheap speaks plain HTTP only, not https:// (use an http:// "
                        "server, or fetch the debug file with debuginfod-find and give "
                        "its folder with --debug-dir)");
      continue;
    }
    std::string url = base;
    while (!url.empty() && url.back() == '/') url.pop_back();
    url.append("/buildid/").append(build_id).append("/debuginfo");
    DownloadOptions download = options;
    download.expect = DownloadedKind::ElfFile;
    SuffixedSink labelled(sink, " (debuginfod)");
    Expected<TemporaryFile> file = downloadFile(url, labelled, download);
    if (!file) {
      answers.push_back(file.error().message());
      continue;
    }
    if (check) {
      if (std::string why = check(file->path()); !why.empty()) {
        answers.push_back(url + ": the file it sent is " + why);
        continue;
      }
    }
    if (store_dir.empty()) {
      return Error::io("cannot keep the debug file from " + url +
                       ": no cache folder ($HOME unset?)");
    }
    if (Status s = keep(file->path(), kept); !s) return s.error();
    return DebuginfodFetch{kept, url};
  }
  std::string message = "no debuginfod server had the debug file of build ID ";
  message.append(build_id).append(":");
  for (const std::string& a : answers) message.append("\n  ").append(a);
  return Error(std::move(message));
}

}  // namespace goheap::acquire
