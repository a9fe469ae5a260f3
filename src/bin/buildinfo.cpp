// The layouts (build info header, module info framing and lines, the build
// ID note and string) are those debug/buildinfo, runtime/debug and
// cmd/internal/buildid read; the code is goheap's own.
#include "bin/buildinfo.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace goheap::bin {

namespace {

constexpr std::string_view kBuildInfoMagic = "\xff Go buildinf:";
constexpr uint64_t kBuildInfoHeaderSize = 32;
// Module info lists every dependency: allow a lot, but not a corrupt length.
constexpr uint64_t kMaxStringLength = 16 << 20;
constexpr std::string_view kBuildIdPrefix = "\xff Go build ID: \"";
constexpr std::string_view kBuildIdEnd = "\"\n \xff";
constexpr uint32_t kElfGoBuildIdNote = 4;

// The build info header: the section .go.buildinfo, or the first 16-byte
// aligned copy of the magic in the file (Go aligns the blob so).
std::optional<uint64_t> findHeader(const Container& c) {
  const ByteView& f = c.file;
  if (const Section* s = c.section(".go.buildinfo"); s != nullptr && s->has_file_data) {
    if (f.has(s->offset, kBuildInfoHeaderSize)) return s->offset;
  }
  const std::string_view all = f.chars(0, f.size());
  for (size_t at = all.find(kBuildInfoMagic); at != std::string_view::npos;
       at = all.find(kBuildInfoMagic, at + 1)) {
    if (at % 16 == 0 && f.has(at, kBuildInfoHeaderSize)) return at;
  }
  return std::nullopt;
}

// A uvarint-length string at `p` (Go 1.18+ inline build info).
std::optional<std::string> varintString(const ByteView& f, uint64_t& p) {
  uint64_t len = 0;
  if (!f.uvarint(p, len) || len > kMaxStringLength || !f.has(p, len)) return std::nullopt;
  std::string s(f.chars(p, len));
  p += len;
  return s;
}

void appendUtf8(std::string& out, uint32_t r) {
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xc0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3f));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xe0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (r & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (r & 0x3f));
  }
}

std::vector<std::string_view> splitTabs(std::string_view s) {
  std::vector<std::string_view> out;
  for (;;) {
    const size_t tab = s.find('\t');
    out.push_back(s.substr(0, tab));
    if (tab == std::string_view::npos) return out;
    s.remove_prefix(tab + 1);
  }
}

// The length of the quoted string at the start of `s` (Go's
// strconv.QuotedPrefix), or 0.
size_t quotedPrefixLength(std::string_view s) {
  if (s.empty() || (s[0] != '"' && s[0] != '`')) return 0;
  const char q = s[0];
  for (size_t i = 1; i < s.size(); ++i) {
    if (q == '"' && s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == q) return i + 1;
    if (q == '"' && s[i] == '\n') return 0;
  }
  return 0;
}

bool needsQuote(std::string_view s, std::string_view specials) {
  return s.find_first_of(specials) != std::string_view::npos;
}

}  // namespace

std::optional<std::string> unquoteGoString(std::string_view q) {
  if (q.size() < 2 || q.front() != q.back()) return std::nullopt;
  if (q.front() == '`') {
    std::string out;
    for (char ch : q.substr(1, q.size() - 2)) {
      if (ch == '`') return std::nullopt;
      if (ch != '\r') out += ch;  // Go drops carriage returns from raw strings
    }
    return out;
  }
  if (q.front() != '"') return std::nullopt;
  std::string out;
  const std::string_view s = q.substr(1, q.size() - 2);
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '"' || ch == '\n') return std::nullopt;
    if (ch != '\\') {
      out += ch;
      continue;
    }
    if (++i >= s.size()) return std::nullopt;
    auto hex = [&](size_t digits) -> std::optional<uint32_t> {
      if (s.size() - i - 1 < digits) return std::nullopt;
      uint32_t v = 0;
      auto [end, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 1 + digits, v, 16);
      if (ec != std::errc() || end != s.data() + i + 1 + digits) return std::nullopt;
      i += digits;
      return v;
    };
    switch (s[i]) {
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case '\\':
        out += '\\';
        break;
      case '"':
        out += '"';
        break;
      case '\'':
        return std::nullopt;  // only in rune literals
      case 'x': {
        std::optional<uint32_t> v = hex(2);
        if (!v) return std::nullopt;
        out += static_cast<char>(*v);
        break;
      }
      case 'u':
      case 'U': {
        std::optional<uint32_t> v = hex(s[i] == 'u' ? 4 : 8);
        if (!v || *v > 0x10ffff || (*v >= 0xd800 && *v < 0xe000)) return std::nullopt;
        appendUtf8(out, *v);
        break;
      }
      default: {
        // Three octal digits.
        if (s.size() - i < 3) return std::nullopt;
        uint32_t v = 0;
        for (size_t k = 0; k < 3; ++k) {
          const char d = s[i + k];
          if (d < '0' || d > '7') return std::nullopt;
          v = v * 8 + static_cast<uint32_t>(d - '0');
        }
        if (v > 255) return std::nullopt;
        out += static_cast<char>(v);
        i += 2;
      }
    }
  }
  return out;
}

std::optional<RawBuildInfo> readRawBuildInfo(const Container& c) {
  std::optional<uint64_t> at = findHeader(c);
  if (!at) return std::nullopt;
  const ByteView& f = c.file;
  if (f.chars(*at, kBuildInfoMagic.size()) != kBuildInfoMagic) return std::nullopt;
  const uint32_t ptr_size = f.u8(*at + 14);
  const uint8_t flags = f.u8(*at + 15);
  RawBuildInfo raw;
  if ((flags & 2) != 0) {
    // Go 1.18+: two uvarint-length strings right after the header.
    uint64_t p = *at + kBuildInfoHeaderSize;
    std::optional<std::string> v = varintString(f, p);
    if (!v) return std::nullopt;
    raw.go_version = *v;
    if (std::optional<std::string> m = varintString(f, p)) raw.modinfo = *m;
  } else {
    // Before: the addresses of the two strings' headers.
    if (ptr_size != 4 && ptr_size != 8) return std::nullopt;
    const bool big = (flags & 1) != 0;
    const ByteView h(f.bytes(), big);
    std::optional<std::string> v =
        goStringAt(c, h.word(*at + 16, ptr_size), ptr_size, big, kMaxStringLength);
    if (!v) return std::nullopt;
    raw.go_version = *v;
    if (std::optional<std::string> m =
            goStringAt(c, h.word(*at + 16 + ptr_size, ptr_size), ptr_size, big, kMaxStringLength)) {
      raw.modinfo = *m;
    }
  }
  // cmd/go frames the text with 16-byte sentinels; without them it is not
  // module info.
  const std::string& m = raw.modinfo;
  if (m.size() >= 33 && m[m.size() - 17] == '\n') {
    raw.modinfo = m.substr(16, m.size() - 32);
  } else {
    raw.modinfo.clear();
  }
  return raw;
}

Expected<BuildInfo> parseModuleInfo(std::string_view text) {
  BuildInfo bi;
  GoModule* last = nullptr;
  auto fail = [](size_t line, const std::string& what) {
    return Error("build info line " + std::to_string(line) + ": " + what);
  };
  auto moduleLine = [&](std::string_view rest, GoModule& out, size_t n) -> Status {
    std::vector<std::string_view> e = splitTabs(rest);
    if (e.size() != 2 && e.size() != 3) {
      return fail(n, "expected 2 or 3 columns, got " + std::to_string(e.size()));
    }
    out = GoModule{};
    out.path = e[0];
    out.version = e[1];
    if (e.size() == 3) out.sum = e[2];
    return Status::success();
  };
  size_t n = 1;
  // Like debug.ParseBuildInfo: only complete lines count.
  for (size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n'), ++n) {
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    if (line.starts_with("path\t")) {
      bi.path = line.substr(5);
    } else if (line.starts_with("mod\t")) {
      last = &bi.main;
      if (Status s = moduleLine(line.substr(4), bi.main, n); !s) return s.error();
    } else if (line.starts_with("dep\t")) {
      bi.deps.emplace_back();
      if (Status s = moduleLine(line.substr(4), bi.deps.back(), n); !s) return s.error();
      last = &bi.deps.back();
    } else if (line.starts_with("=>\t")) {
      std::vector<std::string_view> e = splitTabs(line.substr(3));
      if (e.size() != 3) return fail(n, "expected 3 columns for a replacement");
      if (last == nullptr) return fail(n, "replacement with no module on the line before");
      last->replace = ModuleVersion{std::string(e[0]), std::string(e[1]), std::string(e[2])};
      last = nullptr;
    } else if (line.starts_with("build\t")) {
      std::string_view kv = line.substr(6);
      if (kv.empty() || kv[0] == '=') return fail(n, "build line without a key");
      std::string key;
      std::string_view raw_value;
      if (const size_t qlen = quotedPrefixLength(kv); qlen > 0) {
        std::optional<std::string> k = unquoteGoString(kv.substr(0, qlen));
        if (!k || qlen >= kv.size() || kv[qlen] != '=') return fail(n, "bad quoted key");
        key = *k;
        raw_value = kv.substr(qlen + 1);
      } else {
        const size_t eq = kv.find('=');
        if (eq == std::string_view::npos) return fail(n, "build line without '='");
        key = kv.substr(0, eq);
        if (needsQuote(key, "= \t\r\n\"`")) return fail(n, "unquoted key must be quoted");
        raw_value = kv.substr(eq + 1);
      }
      std::string value;
      if (!raw_value.empty() && (raw_value[0] == '"' || raw_value[0] == '`')) {
        std::optional<std::string> v = unquoteGoString(raw_value);
        if (!v) return fail(n, "bad quoted value");
        value = *v;
      } else {
        if (needsQuote(raw_value, " \t\r\n\"`")) return fail(n, "unquoted value must be quoted");
        value = raw_value;
      }
      bi.settings.emplace_back(std::move(key), std::move(value));
    }
  }
  return bi;
}

std::optional<Expected<BuildInfo>> readBuildInfo(const Container& c) {
  std::optional<RawBuildInfo> raw = readRawBuildInfo(c);
  if (!raw) return std::nullopt;
  Expected<BuildInfo> bi = parseModuleInfo(raw->modinfo);
  if (bi) bi->go_version = raw->go_version;
  return bi;
}

std::string readBuildId(const Container& c) {
  const ByteView& f = c.file;
  if (c.format == ContainerFormat::Elf) {
    if (const Section* s = c.section(".note.go.buildid"); s != nullptr && s->has_file_data) {
      Expected<ByteView> note = c.sectionData(*s);
      // namesz, descsz, type, then the name and the description, each
      // padded to 4 bytes.
      if (note && note->has(0, 12)) {
        const uint64_t namesz = note->u32(0), descsz = note->u32(4), type = note->u32(8);
        const uint64_t desc = 12 + (namesz + 3) / 4 * 4;
        // Go writes the name "Go\0\0" with namesz 4.
        if (type == kElfGoBuildIdNote && (namesz == 3 || namesz == 4) && note->has(12, 3) &&
            note->chars(12, 3) == std::string_view("Go\0", 3) && note->has(desc, descsz)) {
          return std::string(note->chars(desc, descsz));
        }
      }
    }
  }
  // The linker writes the quoted string at the very start of the text; look
  // there and in the first 32 KiB of the file, as go tool buildid does.
  std::vector<std::pair<uint64_t, uint64_t>> windows = {
      {0, std::min<uint64_t>(f.size(), 32 << 10)}};
  for (std::string_view name : {".text", "__text"}) {
    if (const Section* s = c.section(name); s != nullptr && f.has(s->offset, 1)) {
      windows.emplace_back(s->offset, std::min<uint64_t>(f.size() - s->offset, 4096));
    }
  }
  for (const auto& [start, len] : windows) {
    const std::string_view w = f.chars(start, len);
    const size_t i = w.find(kBuildIdPrefix);
    if (i == std::string_view::npos) continue;
    const size_t j = w.find(kBuildIdEnd, i + kBuildIdPrefix.size());
    if (j == std::string_view::npos) continue;
    // The quotes around the ID are part of the prefix and the end marker.
    std::optional<std::string> id =
        unquoteGoString(w.substr(i + kBuildIdPrefix.size() - 1, j - i - kBuildIdPrefix.size() + 2));
    if (id) return *id;
  }
  return {};
}

std::optional<std::string> goStringAt(const Container& c, uint64_t addr, uint32_t ptr_size,
                                      bool big_endian, uint64_t max_length) {
  std::optional<ByteView> header = c.readAt(addr, 2 * ptr_size);
  if (!header) return std::nullopt;
  const ByteView h(header->bytes(), big_endian);
  const uint64_t ptr = h.word(0, ptr_size);
  const uint64_t len = h.word(ptr_size, ptr_size);
  if (len > max_length) return std::nullopt;
  std::optional<ByteView> text = c.readAt(ptr, len);
  if (!text) return std::nullopt;
  return std::string(text->chars(0, len));
}

}  // namespace goheap::bin
