#include "core/executable_match.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "util/format.h"

namespace goheap::core {

namespace {

MatchCheck checkPath(const CoreFile& core, std::string_view exe_path) {
  MatchCheck c{"path", false, false, ""};
  if (core.files().empty()) {
    c.detail = "the core has no NT_FILE note";
    return c;
  }
  c.checked = true;
  const std::string want = canonicalPath(exe_path);
  const std::string base = std::filesystem::path(want).filename().string();
  std::string_view by_name;
  for (const FileMapping& m : core.files()) {
    const std::string_view path = m.pathWithoutDeleted();
    if (path == want) {
      c.ok = true;
      c.detail = "mapped at " + formatHex(m.start);
      return c;
    }
    if (by_name.empty() && std::filesystem::path(path).filename() == base) by_name = m.path;
  }
  if (!by_name.empty()) {
    c.ok = true;
    c.detail = "by name only: the core maps " + std::string(by_name);
    return c;
  }
  c.detail = "no file the core maps is " + want;
  if (!core.files().empty())
    c.detail += " (the first is " + std::string(core.files()[0].path) + ")";
  return c;
}

MatchCheck checkEntry(const CoreFile& core, const bin::Container& exe, uint64_t bias) {
  MatchCheck c{"entry", false, false, ""};
  const auto at_entry = core.aux(kAtEntry);
  if (!at_entry) {
    c.detail = "the core has no AT_ENTRY";
    return c;
  }
  if (exe.format != bin::ContainerFormat::Elf) {
    c.detail = "the executable is not ELF";
    return c;
  }
  c.checked = true;
  const uint64_t page = core.aux(kAtPagesz).value_or(4096);
  if (exe.position_independent && page != 0 && bias % page != 0) {
    c.detail = "entry " + formatHex(*at_entry) + " vs " + formatHex(exe.entry) +
               ": a position-independent executable loaded " + formatHex(bias) +
               " off, not a whole page";
    return c;
  }
  c.ok = *at_entry == exe.entry + bias;
  c.detail = "entry " + formatHex(*at_entry) + " vs " + formatHex(exe.entry + bias);
  if (bias != 0) c.detail += " (" + formatHex(exe.entry) + " + load bias " + formatHex(bias) + ")";
  return c;
}

MatchCheck checkText(const CoreFile& core, const bin::Container& exe, uint64_t bias) {
  MatchCheck c{"text", false, false, ""};
  uint64_t compared = 0;
  const bin::ByteView& f = exe.file;
  for (const bin::Segment& s : exe.segments) {
    if (s.writable || s.filesz == 0 || !f.has(s.offset, s.filesz)) continue;
    const uint64_t start = s.vaddr + bias;
    if (start + s.filesz < start) continue;
    const uint64_t end = start + s.filesz;
    for (const CoreSegment& cs : core.segments()) {
      const uint64_t lo = std::max(start, cs.vaddr);
      const uint64_t hi = std::min(end, cs.vaddr + cs.bytes.size());
      if (lo >= hi) continue;
      const uint8_t* in_core = cs.bytes.data() + (lo - cs.vaddr);
      const uint8_t* in_exe = f.bytes().data() + s.offset + (lo - start);
      if (std::memcmp(in_core, in_exe, hi - lo) != 0) {
        uint64_t at = 0;
        while (in_core[at] == in_exe[at]) ++at;
        c.checked = true;
        c.detail = "text bytes differ at " + formatHex(lo + at) + " (core " +
                   formatHex(in_core[at]) + ", executable " + formatHex(in_exe[at]) + ")";
        return c;
      }
      compared += hi - lo;
    }
  }
  if (compared == 0) {
    c.detail = "the core holds none of the executable's read-only bytes";
    return c;
  }
  c.checked = true;
  c.ok = true;
  c.detail = std::to_string(compared) + " bytes equal";
  return c;
}

// The Go build info (.go.buildinfo: the Go version and, since Go 1.18, the
// module and build settings inline) in the core against the executable's:
// written by the linker into the writable data, it is in every core that
// holds the program's data, and it names the very build.
MatchCheck checkBuildInfo(const CoreFile& core, const bin::Container& exe, uint64_t bias) {
  MatchCheck c{"buildinfo", false, false, ""};
  const bin::Section* info = nullptr;
  for (const bin::Section& s : exe.sections) {
    if (s.name == ".go.buildinfo" && s.addr != 0 && s.has_file_data) info = &s;
  }
  if (info == nullptr || !exe.file.has(info->offset, info->size)) {
    c.detail = "the executable has no .go.buildinfo section";
    return c;
  }
  const uint64_t start = info->addr + bias;
  for (const CoreSegment& cs : core.segments()) {
    if (start < cs.vaddr || start + info->size > cs.vaddr + cs.bytes.size()) continue;
    const uint8_t* in_core = cs.bytes.data() + (start - cs.vaddr);
    const uint8_t* in_exe = exe.file.bytes().data() + info->offset;
    c.checked = true;
    for (uint64_t at = 0; at < info->size; ++at) {
      if (in_core[at] != in_exe[at]) {
        c.detail = "build info differs at " + formatHex(start + at);
        return c;
      }
    }
    c.ok = true;
    c.detail = std::to_string(info->size) + " bytes equal";
    return c;
  }
  c.detail = "the core does not hold the build info at " + formatHex(start);
  return c;
}

}  // namespace

std::string canonicalPath(std::string_view path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(std::string(path), ec);
  return ec ? std::string(path) : p.string();
}

uint64_t loadBias(const CoreFile& core, const bin::Container& exe) {
  if (!exe.position_independent) return 0;
  const auto at_entry = core.aux(kAtEntry);
  return at_entry ? *at_entry - exe.entry : 0;
}

bool ExecutableMatch::failed(const MatchCheck& c) const {
  if (!c.checked || c.ok) return false;
  // A copy or a renamed build is the same program: a different path counts
  // only when the contents could not be compared.
  if (c.name == "path") {
    return std::none_of(checks.begin(), checks.end(),
                        [](const MatchCheck& o) { return o.name != "path" && o.checked; });
  }
  return true;
}

bool ExecutableMatch::matches() const {
  return std::none_of(checks.begin(), checks.end(), [&](const MatchCheck& c) { return failed(c); });
}

std::string ExecutableMatch::mismatch() const {
  std::string m;
  for (const MatchCheck& c : checks) {
    if (!failed(c)) continue;
    m += m.empty() ? "core and executable do not match: " : "; ";
    m += c.name == "entry" ? c.detail : c.name + ": " + c.detail;
  }
  return m;
}

ExecutableMatch checkExecutable(const CoreFile& core, const bin::Container& exe,
                                std::string_view exe_path) {
  ExecutableMatch m;
  m.bias = loadBias(core, exe);
  m.checks.push_back(checkPath(core, exe_path));
  m.checks.push_back(checkEntry(core, exe, m.bias));
  m.checks.push_back(checkText(core, exe, m.bias));
  m.checks.push_back(checkBuildInfo(core, exe, m.bias));
  return m;
}

}  // namespace goheap::core
