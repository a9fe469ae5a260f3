#include "bin/debug_file_search.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "util/format.h"
#include "util/mapped_file.h"

namespace goheap::bin {

namespace {

constexpr uint32_t kNtGnuBuildId = 3;

// The readable name of a path's problem: "no such file", "permission denied".
std::string missingReason(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) return "no such file";
  if (!std::filesystem::is_regular_file(st)) return "not a regular file";
  return {};
}

// The executable's folder as gdb joins it to a debug folder: absolute, with
// symbolic links resolved (/usr/bin/foo -> /usr/lib/debug/usr/bin/foo.debug).
std::string exeFolder(const std::string& exe_path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(exe_path, ec);
  if (ec) p = std::filesystem::absolute(exe_path, ec).lexically_normal();
  return p.parent_path().string();
}

std::string joinPath(std::string_view dir, std::string_view rest) {
  std::string out(dir);
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  if (!rest.starts_with('/')) out += '/';
  out += rest;
  return out;
}

bool samePath(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

}  // namespace

std::string gnuBuildId(const Container& c) {
  if (c.format != ContainerFormat::Elf) return {};
  const Section* s = c.section(".note.gnu.build-id");
  if (s == nullptr || !s->has_file_data) return {};
  Expected<ByteView> note = c.sectionData(*s);
  if (!note) return {};
  // Notes one after another: namesz, descsz, type, the name and the
  // description, each padded to 4 bytes.
  for (uint64_t at = 0; note->has(at, 12);) {
    const uint64_t namesz = note->u32(at), descsz = note->u32(at + 4), type = note->u32(at + 8);
    const uint64_t name_at = at + 12;
    const uint64_t desc_at = name_at + (namesz + 3) / 4 * 4;
    if (!note->has(name_at, namesz) || !note->has(desc_at, descsz)) return {};
    if (type == kNtGnuBuildId && namesz == 4 &&
        note->chars(name_at, 4) == std::string_view("GNU\0", 4)) {
      return formatHexBytes(note->bytes().subspan(desc_at, descsz));
    }
    at = desc_at + (descsz + 3) / 4 * 4;
  }
  return {};
}

std::optional<DebugLink> debugLink(const Container& c) {
  if (c.format != ContainerFormat::Elf) return std::nullopt;
  const Section* s = c.section(".gnu_debuglink");
  if (s == nullptr || !s->has_file_data) return std::nullopt;
  Expected<ByteView> data = c.sectionData(*s);
  if (!data) return std::nullopt;
  const std::string_view all = data->chars(0, data->size());
  const size_t nul = all.find('\0');
  if (nul == std::string_view::npos || nul == 0) return std::nullopt;
  // The CRC follows the name's NUL, at the next multiple of 4.
  const uint64_t crc_at = (nul + 1 + 3) / 4 * 4;
  if (!data->has(crc_at, 4)) return std::nullopt;
  DebugLink link;
  link.name = std::string(all.substr(0, nul));
  link.crc = data->u32(crc_at);
  // A name with a folder in it is not gdb's to follow, nor ours.
  if (link.name.find('/') != std::string::npos) return std::nullopt;
  return link;
}

uint32_t debugLinkCrc(std::span<const uint8_t> bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes at most a uInt of bytes a call.
  constexpr size_t kStep = 1u << 30;
  for (size_t at = 0; at < bytes.size(); at += kStep) {
    const size_t n = std::min(kStep, bytes.size() - at);
    crc = crc32(crc, bytes.data() + at, static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

bool hasOwnDebugInfo(const Container& c) {
  for (std::string_view name : {".debug_info", ".zdebug_info", "__debug_info", "__zdebug_info"}) {
    if (const Section* s = c.section(name); s != nullptr && s->has_file_data && s->size > 0) {
      return true;
    }
  }
  return false;
}

std::string buildIdDebugPath(std::string_view debug_dir, std::string_view build_id) {
  if (build_id.size() < 4) return {};
  std::string rest = ".build-id/";
  rest.append(build_id.substr(0, 2)).append("/").append(build_id.substr(2)).append(".debug");
  return joinPath(debug_dir, rest);
}

std::string debugFileMismatch(const Container& exe, const Container& debug) {
  if (debug.format != ContainerFormat::Elf) return "not an ELF file";
  if (debug.arch != exe.arch || debug.ptr_size != exe.ptr_size ||
      debug.big_endian != exe.big_endian) {
    return "for another machine (" + debug.arch + ", not " + exe.arch + ")";
  }
  const std::string want = gnuBuildId(exe);
  const std::string have = gnuBuildId(debug);
  if (!want.empty() && !have.empty() && want != have) {
    return "another build (GNU build ID " + have + ", not " + want + ")";
  }
  if (!hasOwnDebugInfo(debug)) return "no .debug_info section in it";
  return {};
}

std::string DebugFileSearch::explain() const {
  if (build_id.empty() && link_name.empty()) {
    return "it has neither a GNU build ID nor a .gnu_debuglink, so no separate debug file can be "
           "looked up for it (Go's linker writes a build ID by default since Go 1.24, before "
           "with -ldflags=-B=gobuildid; externally linked builds have one)";
  }
  std::string out = "no separate debug file found (";
  if (!build_id.empty()) out += "GNU build ID " + build_id;
  if (!build_id.empty() && !link_name.empty()) out += ", ";
  if (!link_name.empty()) out += ".gnu_debuglink " + link_name;
  out += "; tried ";
  for (size_t i = 0; i < tried.size(); ++i) {
    if (i > 0) out += ", ";
    out += tried[i];
  }
  out += "; give the folder with --debug-dir DIR, or a debuginfod server in DEBUGINFOD_URLS)";
  return out;
}

DebugFileSearch findDebugFile(const std::string& exe_path, const Container& exe,
                              std::span<const std::string> debug_dirs,
                              const ProcessFiles& process) {
  DebugFileSearch search;
  search.build_id = gnuBuildId(exe);
  const std::optional<DebugLink> link = debugLink(exe);
  if (link) search.link_name = link->name;

  std::vector<std::string> dirs(debug_dirs.begin(), debug_dirs.end());
  dirs.emplace_back(kSystemDebugDir);
  const bool in_process_root = !process.root.empty();
  if (in_process_root) dirs.push_back(joinPath(process.root, kSystemDebugDir));

  // Whether `path` serves: an ELF file for `exe`, with DWARF, and the CRC
  // the link names when `crc` is given; else the reason goes to `tried`.
  auto take = [&](const std::string& path, std::string_view how,
                  std::optional<uint32_t> crc) -> bool {
    if (std::string why = missingReason(path); !why.empty()) {
      search.tried.push_back(path + ": " + why);
      return false;
    }
    Expected<MappedFile> file = MappedFile::open(path);
    if (!file) {
      search.tried.push_back(path + ": " + file.error().message());
      return false;
    }
    Expected<Container> debug = readContainer(file->bytes());
    std::string why = debug ? debugFileMismatch(exe, *debug) : debug.error().message();
    if (why.empty() && crc) {
      const uint32_t have = debugLinkCrc(file->bytes());
      if (have != *crc) {
        why = "CRC-32 " + formatHex(have) + ", not the " + formatHex(*crc) +
              " .gnu_debuglink names (another build)";
      }
    }
    if (!why.empty()) {
      search.tried.push_back(path + ": " + why);
      return false;
    }
    search.path = path;
    search.found_by = std::string(how);
    return true;
  };

  if (std::string rest = buildIdDebugPath("", search.build_id); !rest.empty()) {
    for (const std::string& dir : dirs) {
      if (take(buildIdDebugPath(dir, search.build_id), "build ID", std::nullopt)) return search;
    }
  }
  if (link) {
    // The kernel gives a process's executable path already resolved, in its
    // own file system, which goheap reaches only under its root.
    const std::string folder = in_process_root
                                   ? std::filesystem::path(process.exe_path).parent_path().string()
                                   : exeFolder(exe_path);
    const std::string beside = in_process_root ? joinPath(process.root, folder) : folder;
    std::vector<std::string> candidates = {joinPath(beside, link->name),
                                           joinPath(beside, ".debug/" + link->name)};
    for (const std::string& dir : dirs) {
      candidates.push_back(joinPath(joinPath(dir, folder), link->name));
    }
    for (const std::string& candidate : candidates) {
      if (samePath(candidate, exe_path)) continue;  // a link naming the executable itself
      if (take(candidate, ".gnu_debuglink", link->crc)) return search;
    }
  }
  return search;
}

}  // namespace goheap::bin
