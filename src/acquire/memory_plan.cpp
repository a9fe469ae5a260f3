#include "acquire/memory_plan.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace goheap::acquire {

namespace {

// Untouched pages are left out, however short the run: a heap of 64 KiB
// buffers each touched at its first byte is one touched page in 16, and
// merging runs of 16 copied the whole heap, 2.3 GB for 400 MB resident.
// Each run left out costs two program headers (56 bytes each) instead.
// Past kMaxSegments (56 MB of headers) the plan merges runs of untouched
// pages, longer and longer, until it fits: ELF's extended numbering counts
// program headers in 32 bits, but a reader must hold them all.
constexpr uint64_t kFirstMergeGapPages = 0;
constexpr size_t kMaxSegments = 1000000;

bool parseHex(std::string_view& text, uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 16);
  if (ec != std::errc() || end == text.data()) return false;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return true;
}

bool parseDec(std::string_view& text, uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 10);
  if (ec != std::errc() || end == text.data()) return false;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return true;
}

bool skip(std::string_view& text, char c) {
  if (text.empty() || text.front() != c) return false;
  text.remove_prefix(1);
  return true;
}

void skipSpaces(std::string_view& text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
}

bool isAnonymous(const Mapping& m) {
  if (m.path.empty()) return true;
  // The kernel's names for anonymous memory: [heap], [stack], [anon:name].
  if (m.path == "[heap]" || m.path.starts_with("[stack") || m.path.starts_with("[anon")) {
    return true;
  }
  // Shared anonymous memory and memfds have a file name but no file to
  // read them back from.
  return m.path.starts_with("/dev/zero") || m.path.starts_with("/SYSV") ||
         m.path.starts_with("/memfd:");
}

// Memory no reader may touch, or that means nothing in a core.
bool unreadableSpecial(const Mapping& m) {
  return m.path.starts_with("[vvar") || m.path == "[vsyscall]";
}

PlannedSegment pieceOf(const Mapping& m, uint64_t start, uint64_t end, bool copy) {
  PlannedSegment s;
  s.start = start;
  s.end = end;
  s.read = m.read;
  s.write = m.write;
  s.exec = m.exec;
  s.copy = copy;
  return s;
}

// Touched runs merged across gaps of at most `merge_gap` pages; the rest
// left out.
void planAnonymous(const Mapping& m, const std::vector<bool>& touched, uint64_t page,
                   uint64_t merge_gap, std::vector<PlannedSegment>& out) {
  const uint64_t pages = touched.size();
  uint64_t i = 0;
  uint64_t left_out_from = m.start;
  while (i < pages) {
    if (!touched[i]) {
      i++;
      continue;
    }
    PlannedSegment seg = pieceOf(m, m.start + i * page, 0, true);
    uint64_t j = i;
    for (;;) {
      while (j < pages && touched[j]) j++;
      uint64_t k = j;  // the next touched page after an untouched run
      while (k < pages && !touched[k]) k++;
      if (k < pages && k - j <= merge_gap) {
        seg.zero_gaps.push_back({m.start + j * page, m.start + k * page});
        j = k;
        continue;
      }
      break;
    }
    seg.end = m.start + j * page;
    if (seg.start > left_out_from) out.push_back(pieceOf(m, left_out_from, seg.start, false));
    out.push_back(std::move(seg));
    left_out_from = m.start + j * page;
    i = j;
  }
  if (left_out_from < m.end) out.push_back(pieceOf(m, left_out_from, m.end, false));
}

}  // namespace

Expected<std::vector<Mapping>> parseMaps(std::string_view text) {
  std::vector<Mapping> maps;
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++line_number;
    if (line.empty()) continue;
    const std::string_view whole = line;
    Mapping m;
    uint64_t dev_major = 0, dev_minor = 0;
    bool ok = parseHex(line, m.start) && skip(line, '-') && parseHex(line, m.end) &&
              skip(line, ' ') && line.size() >= 4;
    if (ok) {
      m.read = line[0] == 'r';
      m.write = line[1] == 'w';
      m.exec = line[2] == 'x';
      m.shared = line[3] == 's';
      line.remove_prefix(4);
      skipSpaces(line);
      ok = parseHex(line, m.offset) && skip(line, ' ') && parseHex(line, dev_major) &&
           skip(line, ':') && parseHex(line, dev_minor);
    }
    if (ok) {
      skipSpaces(line);
      ok = parseDec(line, m.inode);
    }
    if (!ok || m.end < m.start) {
      return Error("/proc maps line " + std::to_string(line_number) + " does not parse: \"" +
                   std::string(whole) + "\"");
    }
    skipSpaces(line);
    m.path = std::string(line);
    maps.push_back(std::move(m));
  }
  return maps;
}

std::vector<std::pair<uint64_t, uint64_t>> parseSmapsRss(std::string_view text) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    uint64_t start = 0, end = 0, kb = 0;
    std::string_view header = line;
    if (parseHex(header, start) && skip(header, '-') && parseHex(header, end) &&
        skip(header, ' ')) {
      out.emplace_back(start, 0);  // a mapping's first line, as in maps
      continue;
    }
    if (!out.empty() && line.starts_with("Rss:")) {
      line.remove_prefix(4);
      skipSpaces(line);
      if (parseDec(line, kb)) out.back().second = kb * 1024;
    }
  }
  return out;
}

Expected<std::vector<bool>> touchedPages(int pagemap_fd, uint64_t start, uint64_t end,
                                         uint64_t page_size) {
  const uint64_t pages = (end - start) / page_size;
  std::vector<bool> touched(pages, false);
  constexpr uint64_t kPresent = uint64_t{1} << 63, kSwapped = uint64_t{1} << 62;
  std::vector<uint64_t> entries(std::min<uint64_t>(pages, 65536));
  for (uint64_t done = 0; done < pages;) {
    const uint64_t n = std::min<uint64_t>(pages - done, entries.size());
    const off_t at = static_cast<off_t>((start / page_size + done) * 8);
    const ssize_t got = ::pread(pagemap_fd, entries.data(), n * 8, at);
    if (got < 0) {
      if (errno == EINTR) continue;
      return Error::io("cannot read the page map: " + std::string(std::strerror(errno)));
    }
    if (got == 0) return Error("the page map ended early: the process has exited");
    const uint64_t read_entries = static_cast<uint64_t>(got) / 8;
    for (uint64_t i = 0; i < read_entries; i++) {
      touched[done + i] = (entries[i] & (kPresent | kSwapped)) != 0;
    }
    done += read_entries;
  }
  return touched;
}

Expected<MemoryPlan> planMemory(const PlanInputs& in) {
  // The pagemap is read once per mapping, whatever the merging.
  std::vector<std::vector<bool>> touched(in.mappings->size());
  for (size_t i = 0; i < in.mappings->size(); i++) {
    const Mapping& m = (*in.mappings)[i];
    if (m.read && isAnonymous(m) && !unreadableSpecial(m)) {
      GOHEAP_TRY(touched[i], in.touched(m.start, m.end));
    }
  }
  for (uint64_t merge_gap = kFirstMergeGapPages;;
       merge_gap = std::max<uint64_t>(1, merge_gap * 4)) {
    MemoryPlan plan;
    for (size_t i = 0; i < in.mappings->size(); i++) {
      const Mapping& m = (*in.mappings)[i];
      if (m.write) plan.writable_bytes += m.end - m.start;
      if (!m.read || unreadableSpecial(m)) continue;
      if (isAnonymous(m)) {
        planAnonymous(m, touched[i], in.page_size, merge_gap, plan.segments);
      } else if (m.path == "[vdso]" || (m.write && !m.shared)) {
        plan.segments.push_back(pieceOf(m, m.start, m.end, true));
      } else if (m.fileBacked() && m.offset == 0 && in.is_elf_header && in.is_elf_header(m) &&
                 m.end - m.start > in.page_size) {
        plan.segments.push_back(pieceOf(m, m.start, m.start + in.page_size, true));
        plan.segments.push_back(pieceOf(m, m.start + in.page_size, m.end, false));
      } else {
        plan.segments.push_back(
            pieceOf(m, m.start, m.end,
                    m.fileBacked() && m.offset == 0 && in.is_elf_header && in.is_elf_header(m)));
      }
    }
    for (const PlannedSegment& s : plan.segments) {
      if (s.copy) plan.copied_bytes += s.size();
    }
    if (plan.segments.size() <= kMaxSegments || merge_gap > (uint64_t{1} << 40)) return plan;
  }
}

}  // namespace goheap::acquire
