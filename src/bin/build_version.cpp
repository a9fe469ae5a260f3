#include "bin/build_version.h"

#include <set>
#include <vector>

#include "util/go_version.h"

namespace goheap::bin {

namespace {

constexpr uint64_t kMinVersionLength = 5;  // "go1.5"

struct Range {
  uint64_t lo = 0, hi = 0;
};

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// Consumes one or more digits at s[i]; false when there are none.
bool digits(std::string_view s, size_t& i) {
  const size_t start = i;
  while (i < s.size() && isDigit(s[i])) i++;
  return i > start;
}

// " X:a,b" or "-X:a,b" after the version proper (cmd/link's main.go).
bool experimentSuffix(std::string_view rest) {
  if (rest.size() < 4 || (rest[0] != ' ' && rest[0] != '-') || rest.substr(1, 2) != "X:") {
    return false;
  }
  for (char c : rest.substr(3)) {
    if (!(c >= 'a' && c <= 'z') && !isDigit(c) && c != ',') return false;
  }
  return true;
}

// Where runtime.buildVersion's header can be: the module's noptrdata and
// data (moduledata or the range symbols), else the sections of those
// names, else every writable segment.
std::vector<Range> dataRanges(const Container& c, const std::optional<ModuleLayout>& m) {
  std::vector<Range> out;
  if (m && m->source != "sections") {
    for (Range r : {Range{m->noptrdata, m->enoptrdata}, Range{m->data, m->edata}}) {
      if (r.hi > r.lo) out.push_back(r);
    }
  }
  if (!out.empty()) return out;
  for (std::string_view name : {".noptrdata", ".data", "__noptrdata", "__data"}) {
    const Section* s = c.section(name);
    if (s != nullptr && s->has_file_data && s->size > 0)
      out.push_back({s->addr, s->addr + s->size});
  }
  if (!out.empty()) return out;
  for (const Segment& s : c.segments) {
    if (s.writable && s.filesz > 0) out.push_back({s.vaddr, s.vaddr + s.filesz});
  }
  return out;
}

// Whether [addr, addr + n) is file bytes of a segment that is not writable:
// read-only data, where the linker puts the string's bytes.
bool inReadOnlyData(const Container& c, uint64_t addr, uint64_t n) {
  for (const Segment& s : c.segments) {
    if (s.writable || addr < s.vaddr || addr - s.vaddr > s.filesz) continue;
    return n <= s.filesz - (addr - s.vaddr);
  }
  return false;
}

// The Go releases that write each pclntab layout (its magic).
bool agreesWithPclntab(const GoVersion& v, PclntabLayout layout) {
  if (!v.minor) return true;  // a devel version: any layout
  switch (layout) {
    case PclntabLayout::Go12:
      return *v.minor >= 2 && *v.minor <= 15;
    case PclntabLayout::Go116:
      return *v.minor == 16 || *v.minor == 17;
    case PclntabLayout::Go118:
      return *v.minor == 18 || *v.minor == 19;
    case PclntabLayout::Go120:
      return *v.minor >= 20;
  }
  return false;
}

// The version a (pointer, length) pair points at, if it is one.
std::optional<std::string> versionAt(const Container& c, uint64_t ptr, uint64_t len) {
  if (len < kMinVersionLength || len > kMaxVersionLength || !inReadOnlyData(c, ptr, len)) {
    return std::nullopt;
  }
  std::optional<ByteView> text = c.readAt(ptr, len);
  if (!text) return std::nullopt;
  std::string s(text->chars(0, len));
  if (!isGoVersionString(s)) return std::nullopt;
  return s;
}

// Every distinct version a header in `r` points at.
void versionsIn(const Container& c, Range r, std::set<std::string>& found) {
  const uint32_t w = c.ptr_size;
  const uint64_t first = (r.lo + w - 1) / w * w;
  if (first >= r.hi || r.hi - first < 2 * w) return;
  std::optional<ByteView> bytes = c.readAt(first, r.hi - first);
  if (!bytes) return;
  for (uint64_t at = 0; at + 2 * w <= bytes->size(); at += w) {
    const uint64_t len = bytes->word(at + w, w);
    if (len < kMinVersionLength || len > kMaxVersionLength) continue;
    if (std::optional<std::string> v = versionAt(c, bytes->word(at, w), len)) found.insert(*v);
  }
}

}  // namespace

bool isGoVersionString(std::string_view s) {
  if (s.starts_with("devel ")) {
    if (s.size() == 6) return false;
    for (char c : s) {
      if (c < 0x20 || c > 0x7e) return false;
    }
    return true;
  }
  if (!s.starts_with("go1.")) return false;
  size_t i = 4;
  if (!digits(s, i)) return false;  // minor
  if (i < s.size() && s[i] == '.') {
    i++;
    if (!digits(s, i)) return false;  // patch
  }
  for (std::string_view pre : {"beta", "rc"}) {
    if (s.substr(i).starts_with(pre)) {
      i += pre.size();
      if (!digits(s, i)) return false;
      break;
    }
  }
  return i == s.size() || experimentSuffix(s.substr(i));
}

std::optional<std::string> goVersionFromStringHeader(const Container& c,
                                                     const std::optional<ModuleLayout>& layout,
                                                     PclntabLayout pclntab) {
  std::set<std::string> found;
  for (Range r : dataRanges(c, layout)) versionsIn(c, r, found);
  std::set<std::string> agreeing;
  for (const std::string& v : found) {
    if (agreesWithPclntab(parseGoVersion(v), pclntab)) agreeing.insert(v);
  }
  if (agreeing.size() != 1) return std::nullopt;
  return *agreeing.begin();
}

}  // namespace goheap::bin
