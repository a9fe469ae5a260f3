#include "cache/cache_key.h"

#include <algorithm>
#include <cstring>

#include "cache/checksum.h"
#include "util/format.h"

namespace goheap::cache {

namespace {

// The inputs written out one after another, each field tagged and strings
// length-prefixed, so that no two different inputs write the same bytes.
class KeyText {
 public:
  void number(char tag, uint64_t value) {
    text_ += tag;
    char raw[sizeof value];
    std::memcpy(raw, &value, sizeof value);
    text_.append(raw, sizeof raw);
  }
  void string(char tag, std::string_view value) {
    number(tag, value.size());
    text_.append(value);
  }
  void file(const FileFingerprint& f) {
    number('s', f.identity.size);
    number('m', static_cast<uint64_t>(f.identity.mtime_ns));
    number('d', f.identity.device);
    number('i', f.identity.inode);
    number('h', f.head_tail_hash);
  }
  std::span<const uint8_t> bytes() const {
    return {reinterpret_cast<const uint8_t*>(text_.data()), text_.size()};
  }

 private:
  std::string text_;
};

// Two halves hashed with different seeds; any two 64-bit numbers do.
constexpr uint64_t kFirstSeed = 0x676f686561702d31;   // "goheap-1"
constexpr uint64_t kSecondSeed = 0x676f686561702d32;  // "goheap-2"

}  // namespace

std::string Key::hex() const {
  return formatHexBytes(bytes);
}

std::optional<Key> Key::fromHex(std::string_view text) {
  Key key;
  if (text.size() != key.bytes.size() * 2) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < key.bytes.size(); ++i) {
    const int hi = digit(text[2 * i]);
    const int lo = digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    key.bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return key;
}

FileFingerprint fingerprintOf(const MappedFile& file) {
  FileFingerprint f;
  f.identity = file.identity();
  // Borrowed memory has no identity but its size.
  f.identity.size = file.size();
  const std::span<const uint8_t> bytes = file.bytes();
  const uint64_t edge = std::min<uint64_t>(kFingerprintEdgeBytes, bytes.size());
  const uint64_t ends[] = {hash64(bytes.first(edge)), hash64(bytes.last(edge))};
  f.head_tail_hash = hashOfHashes(ends);
  return f;
}

Expected<FileFingerprint> fingerprintOf(const std::string& path) {
  GOHEAP_TRY(MappedFile file, MappedFile::open(path));
  return fingerprintOf(file);
}

ExecutableFingerprint fingerprintOf(const bin::Binary& executable) {
  ExecutableFingerprint e;
  e.build_id = executable.buildId();
  e.size = executable.file().size();
  e.content_hash = hash64(executable.file().bytes());
  if (e.build_id.empty()) e.file = fingerprintOf(executable.file());
  if (const MappedFile* debug = executable.debugFile()) {
    e.debug_file = fingerprintOf(*debug);
    e.debug_content_hash = hash64(debug->bytes());
  }
  return e;
}

Key computeKey(const KeyInputs& inputs) {
  KeyText text;
  text.number('V', inputs.format_version);
  text.string('G', inputs.goheap_version);
  text.file(inputs.heap);
  if (inputs.executable) {
    text.string('B', inputs.executable->build_id);
    text.number('S', inputs.executable->size);
    text.number('X', inputs.executable->content_hash);
    if (inputs.executable->file) text.file(*inputs.executable->file);
    if (inputs.executable->debug_file) {
      text.string('D', "debug file");
      text.file(*inputs.executable->debug_file);
      text.number('Y', inputs.executable->debug_content_hash);
    }
  } else {
    text.string('N', "none");
  }
  text.number('c', inputs.options.conservative_stacks ? 1 : 0);
  text.number('t', inputs.options.type_objects ? 1 : 0);
  Key key;
  const std::array<uint64_t, 2> halves[] = {hash128(text.bytes(), kFirstSeed),
                                            hash128(text.bytes(), kSecondSeed)};
  std::memcpy(key.bytes.data(), halves, key.bytes.size());
  return key;
}

}  // namespace goheap::cache
