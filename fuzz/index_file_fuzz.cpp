// libFuzzer entry for the index cache's reader (src/cache/index_file.h).
// The first byte picks one of two modes:
//
// - even: the rest is a file. IndexFile must refuse it with an Error or
//   open it, and then every section it hands out must lie inside the input
//   (AddressSanitizer sees any read that does not). The key is taken from
//   the input's own header, so that the fuzzer gets past the key check.
// - odd: the rest chooses sections (ids, element sizes, bytes) and a few
//   changes. The sections are written with IndexWriter; the file must open
//   and read back as written. Then the changes (bytes flipped, the file cut
//   short) are made, and a file that differs from the one written in any
//   byte must be refused: every byte is covered by a checksum or must be
//   zero, so an accepted change is a bug, and aborts. A section made last
//   (IndexWriter::addLast) may hold arbitrary bytes read as the goroutine
//   leak analysis (cache/leaks_index.h): refused or read, never a crash.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cache/index_file.h"
#include "cache/leaks_index.h"
#include "cache/snapshot_index.h"

namespace {

using goheap::cache::IndexFile;
using goheap::cache::Key;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "index_file_fuzz: %s\n", what);
  std::abort();
}

// Bytes at the 64-byte alignment of a mapping.
struct Aligned {
  struct alignas(64) Block {
    uint8_t bytes[64];
  };
  explicit Aligned(std::span<const uint8_t> from)
      : blocks((from.size() + 63) / 64), size(from.size()) {
    if (size > 0) std::memcpy(data(), from.data(), size);
  }
  uint8_t* data() { return blocks.front().bytes; }
  std::span<const uint8_t> bytes() { return {blocks.empty() ? nullptr : data(), size}; }
  std::vector<Block> blocks;
  size_t size;
};

void touchAll(const IndexFile& index, std::span<const uint8_t> file) {
  for (const goheap::cache::SectionInfo& s : index.sections()) {
    auto bytes = index.bytes(s.id);
    if (!bytes) fail("a listed section has no bytes");
    if (bytes->data() < file.data() || bytes->data() + bytes->size() > file.data() + file.size()) {
      fail("a section lies outside the file");
    }
    uint8_t sum = 0;
    for (uint8_t b : *bytes) sum = static_cast<uint8_t>(sum + b);
    if (s.element_size == 8) {
      auto words = index.array<uint64_t>(s.id);
      if (!words || words->size() != s.element_count) fail("8-byte elements did not read");
    }
    (void)sum;
  }
  (void)index.description();
}

void openBytes(std::span<const uint8_t> input) {
  Aligned file(input);
  Key key;
  if (input.size() >= goheap::cache::index_layout::kKeyOffset + key.bytes.size()) {
    std::memcpy(key.bytes.data(), input.data() + goheap::cache::index_layout::kKeyOffset,
                key.bytes.size());
  }
  for (unsigned threads : {1u, 2u}) {
    auto index = IndexFile::fromBytes(file.bytes(), key, threads);
    if (index) touchAll(**index, file.bytes());
  }
}

std::vector<uint8_t> writeToMemory(const goheap::cache::IndexWriter& writer, const Key& key) {
  const int fd = ::memfd_create("index_file_fuzz", MFD_CLOEXEC);
  if (fd < 0) fail("memfd_create failed");
  if (!writer.write(fd, key, "memfd").ok()) fail("writing a valid index failed");
  // The size written: fileSize() leaves out the sections made last.
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("fstat failed");
  std::vector<uint8_t> out(static_cast<size_t>(st.st_size));
  if (::pread(fd, out.data(), out.size(), 0) != static_cast<ssize_t>(out.size())) {
    fail("reading the index back failed");
  }
  ::close(fd);
  return out;
}

void writeAndChange(std::span<const uint8_t> input) {
  FuzzedDataProvider in(input.data(), input.size());
  Key key;
  key.bytes[0] = in.ConsumeIntegral<uint8_t>();
  goheap::cache::IndexWriter writer;
  constexpr unsigned kMaxSections = 6;
  // Reserved, so that the spans given to add() stay where they are.
  std::vector<std::vector<uint8_t>> sections;
  sections.reserve(kMaxSections);
  std::vector<uint32_t> ids;
  const unsigned count = in.ConsumeIntegralInRange<unsigned>(0, kMaxSections);
  for (unsigned i = 0; i < count; ++i) {
    const uint32_t id = in.ConsumeIntegralInRange<uint32_t>(0, 9);
    const uint32_t element_size = in.ConsumeIntegralInRange<uint32_t>(1, 16);
    const size_t elements = in.ConsumeIntegralInRange<size_t>(0, 64);
    std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(elements * element_size);
    bytes.resize(bytes.size() / element_size * element_size);
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) continue;
    ids.push_back(id);
    sections.push_back(std::move(bytes));
    writer.add(id, element_size, sections.back());
  }
  const bool with_leaks = in.ConsumeBool();
  std::vector<uint8_t> leaks_text;
  if (with_leaks) {
    leaks_text = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 256));
    writer.addLast(goheap::cache::kGoroutineLeaks, 1, [&] { return leaks_text; });
  }
  const size_t goroutines = in.ConsumeIntegralInRange<size_t>(0, 16);
  goheap::cache::EntryDescription description;
  description.input_path = in.ConsumeRandomLengthString(64);
  description.input_size = in.ConsumeIntegral<uint64_t>();
  writer.setDescription(description);

  const std::vector<uint8_t> written = writeToMemory(writer, key);
  Aligned file(written);
  auto index = IndexFile::fromBytes(file.bytes(), key);
  if (!index) fail(("a file just written does not open: " + index.error().message()).c_str());
  for (size_t i = 0; i < ids.size(); ++i) {
    auto bytes = (*index)->bytes(ids[i]);
    if (!bytes ||
        !std::equal(bytes->begin(), bytes->end(), sections[i].begin(), sections[i].end())) {
      fail("a section does not read back as written");
    }
  }
  if (with_leaks) {
    auto bytes = (*index)->bytes(goheap::cache::kGoroutineLeaks);
    if (!bytes || !std::equal(bytes->begin(), bytes->end(), leaks_text.begin(), leaks_text.end())) {
      fail("the section made last does not read back as made");
    }
    auto leaks = goheap::cache::readGoroutineLeaks(**index, goroutines);
    if (leaks && leaks->has_value() && (*leaks)->leaked.size() > goroutines) {
      fail("goroutine leaks read for more records than the heap has");
    }
  }
  auto read_description = (*index)->description();
  if (!read_description || !(*read_description == description)) {
    fail("the description does not read back as written");
  }

  std::vector<uint8_t> changed = written;
  const unsigned flips = in.ConsumeIntegralInRange<unsigned>(0, 3);
  for (unsigned f = 0; f < flips && !changed.empty(); ++f) {
    const size_t at = in.ConsumeIntegralInRange<size_t>(0, changed.size() - 1);
    changed[at] ^= in.ConsumeIntegral<uint8_t>();
  }
  if (in.ConsumeBool()) changed.resize(in.ConsumeIntegralInRange<size_t>(0, changed.size()));
  Aligned mutated(changed);
  auto reopened = IndexFile::fromBytes(mutated.bytes(), key, 2);
  if (reopened && changed != written) fail("a changed file was accepted");
  if (!reopened && changed == written) fail("an unchanged file was refused");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> rest(data + 1, size - 1);
  if ((data[0] & 1) == 0) {
    openBytes(rest);
  } else {
    writeAndChange(rest);
  }
  return 0;
}
