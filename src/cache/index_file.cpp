#include "cache/index_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>
#include <utility>

#include "cache/checksum.h"
#include "util/format.h"

namespace goheap::cache {

using namespace index_layout;

namespace {

template <class T>
T load(std::span<const uint8_t> bytes, uint64_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

template <class T>
void put(std::vector<uint8_t>& bytes, uint64_t at, T v) {
  std::memcpy(bytes.data() + at, &v, sizeof v);
}

uint64_t alignUp(uint64_t x, uint64_t alignment) {
  return (x + alignment - 1) / alignment * alignment;
}

uint64_t tableEnd(uint64_t sections) {
  return kHeaderBytes + sections * kTableEntryBytes;
}

uint64_t headerChecksum(std::span<const uint8_t> header, std::span<const uint8_t> table) {
  const uint64_t parts[] = {hash64(header.first(kChecksumOffset)), hash64(table)};
  return hashOfHashes(parts);
}

// The header and table of a file with `table` (sorted by id).
std::vector<uint8_t> encodeHeaderAndTable(const Key& key, std::span<const SectionInfo> table,
                                          uint64_t file_size) {
  std::vector<uint8_t> out(tableEnd(table.size()), 0);
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  put<uint32_t>(out, kVersionOffset, kLayoutVersion);
  put<uint32_t>(out, 12, kByteOrderMark);
  put<uint32_t>(out, 16, static_cast<uint32_t>(sizeof(void*)));
  put<uint32_t>(out, 20, static_cast<uint32_t>(kHeaderBytes));
  std::memcpy(out.data() + kKeyOffset, key.bytes.data(), key.bytes.size());
  put<uint32_t>(out, kSectionCountOffset, static_cast<uint32_t>(table.size()));
  put<uint32_t>(out, 60, static_cast<uint32_t>(kSectionAlignment));
  put<uint64_t>(out, kFileSizeOffset, file_size);
  for (size_t i = 0; i < table.size(); ++i) {
    const uint64_t at = kHeaderBytes + i * kTableEntryBytes;
    put<uint32_t>(out, at, table[i].id);
    put<uint32_t>(out, at + 4, table[i].element_size);
    put<uint64_t>(out, at + 8, table[i].element_count);
    put<uint64_t>(out, at + 16, table[i].offset);
    put<uint64_t>(out, at + 24, table[i].length);
    put<uint64_t>(out, at + 32, table[i].checksum);
  }
  const std::span<const uint8_t> all(out);
  put<uint64_t>(out, kChecksumOffset,
                headerChecksum(all.first(kHeaderBytes), all.subspan(kHeaderBytes)));
  return out;
}

Status writeAt(int fd, std::span<const uint8_t> bytes, uint64_t offset, std::string_view name) {
  // Linux moves at most about 2 GiB per call.
  constexpr size_t kMaxChunk = size_t{1} << 30;
  while (!bytes.empty()) {
    const ssize_t n =
        ::pwrite(fd, bytes.data(), std::min(bytes.size(), kMaxChunk), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Error::io("cannot write " + std::string(name) + ": " +
                       (n < 0 ? std::strerror(errno) : "the write made no progress"));
    }
    bytes = bytes.subspan(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return Status::success();
}

// The header and table of a file, checked for everything but the sections'
// checksums.
struct Layout {
  Key key;
  std::vector<SectionInfo> sections;  // sorted by id
};

Error at(uint64_t offset, std::string_view context, const std::string& what) {
  return Error::atOffset(offset, context, what);
}

std::string sectionContext(size_t index, uint32_t id) {
  return "section table entry " + std::to_string(index) + ", id " + std::to_string(id);
}

Status checkHeader(std::span<const uint8_t> file) {
  if (file.size() < kHeaderBytes) {
    return at(file.size(), "header",
              "the file ends after " + std::to_string(file.size()) + " bytes, in the " +
                  std::to_string(kHeaderBytes) + "-byte header (truncated)");
  }
  if (std::memcmp(file.data(), kMagic, sizeof kMagic) != 0) {
    return at(0, "header", "not a goheap index file (no GOHEAPIX magic)");
  }
  if (const auto v = load<uint32_t>(file, kVersionOffset); v != kLayoutVersion) {
    return at(kVersionOffset, "header",
              "layout version " + std::to_string(v) + "; this goheap reads version " +
                  std::to_string(kLayoutVersion));
  }
  if (const auto bom = load<uint32_t>(file, 12); bom != kByteOrderMark) {
    return at(12, "header",
              bom == __builtin_bswap32(kByteOrderMark)
                  ? std::string("written on a machine of the other byte order")
                  : "byte-order mark " + formatHex(bom) + ", not " + formatHex(kByteOrderMark));
  }
  if (const auto p = load<uint32_t>(file, 16); p != sizeof(void*)) {
    return at(16, "header",
              "written with " + std::to_string(p) + "-byte pointers; this goheap has " +
                  std::to_string(sizeof(void*)));
  }
  if (const auto h = load<uint32_t>(file, 20); h != kHeaderBytes) {
    return at(20, "header",
              "header size " + std::to_string(h) + ", not " + std::to_string(kHeaderBytes));
  }
  if (const auto a = load<uint32_t>(file, 60); a != kSectionAlignment) {
    return at(
        60, "header",
        "section alignment " + std::to_string(a) + ", not " + std::to_string(kSectionAlignment));
  }
  const auto claimed = load<uint64_t>(file, kFileSizeOffset);
  if (claimed > file.size()) {
    return at(file.size(), "header",
              "the file ends after " + std::to_string(file.size()) + " bytes; its header says " +
                  std::to_string(claimed) + " (truncated)");
  }
  if (claimed < file.size()) {
    return at(claimed, "header",
              "the file has " + std::to_string(file.size()) + " bytes; its header says " +
                  std::to_string(claimed));
  }
  const uint64_t table_end = tableEnd(load<uint32_t>(file, kSectionCountOffset));
  if (table_end > file.size()) {
    return at(file.size(), "section table",
              "the table of " + std::to_string(load<uint32_t>(file, kSectionCountOffset)) +
                  " sections ends at byte " + std::to_string(table_end) +
                  ", after the end of the file");
  }
  for (uint64_t i = kFileSizeOffset + 8; i < kChecksumOffset; ++i) {
    if (file[i] != 0) return at(i, "header", "a reserved byte is not zero");
  }
  if (load<uint64_t>(file, kChecksumOffset) !=
      headerChecksum(file.first(kHeaderBytes),
                     file.subspan(kHeaderBytes, table_end - kHeaderBytes))) {
    return at(kChecksumOffset, "header",
              "the checksum of the header and section table does not match (the file is "
              "corrupt)");
  }
  return Status::success();
}

Expected<SectionInfo> readEntry(std::span<const uint8_t> file, size_t index, uint64_t table_end) {
  const uint64_t entry = kHeaderBytes + index * kTableEntryBytes;
  SectionInfo s;
  s.id = load<uint32_t>(file, entry);
  s.element_size = load<uint32_t>(file, entry + 4);
  s.element_count = load<uint64_t>(file, entry + 8);
  s.offset = load<uint64_t>(file, entry + 16);
  s.length = load<uint64_t>(file, entry + 24);
  s.checksum = load<uint64_t>(file, entry + 32);
  const std::string context = sectionContext(index, s.id);
  if (s.element_size == 0) return at(entry + 4, context, "element size 0");
  uint64_t length = 0;
  if (__builtin_mul_overflow(s.element_count, uint64_t{s.element_size}, &length) ||
      length != s.length) {
    return at(entry + 8, context,
              std::to_string(s.element_count) + " elements of " + std::to_string(s.element_size) +
                  " bytes do not make its length " + std::to_string(s.length));
  }
  if (s.offset % kSectionAlignment != 0) {
    return at(entry + 16, context,
              "offset " + std::to_string(s.offset) + " is not aligned to " +
                  std::to_string(kSectionAlignment));
  }
  if (s.offset < table_end) {
    return at(entry + 16, context,
              "offset " + std::to_string(s.offset) + " lies in the header or section table");
  }
  if (s.offset > file.size() || s.length > file.size() - s.offset) {
    return at(entry + 16, context,
              "bytes " + std::to_string(s.offset) + " to " + std::to_string(s.offset + s.length) +
                  " run past the end of the file (" + std::to_string(file.size()) +
                  " bytes; truncated)");
  }
  return s;
}

// The sections tile the file after the table in offset order, with only
// zero bytes between them, and the file ends with the last.
Status checkTiling(std::span<const uint8_t> file, const std::vector<SectionInfo>& sections,
                   uint64_t table_end) {
  std::vector<size_t> by_offset(sections.size());
  std::iota(by_offset.begin(), by_offset.end(), size_t{0});
  std::sort(by_offset.begin(), by_offset.end(), [&](size_t a, size_t b) {
    return std::pair(sections[a].offset, sections[a].length) <
           std::pair(sections[b].offset, sections[b].length);
  });
  uint64_t cursor = table_end;
  const SectionInfo* previous = nullptr;
  for (size_t i : by_offset) {
    const SectionInfo& s = sections[i];
    if (s.offset < cursor) {
      return at(s.offset, "section id " + std::to_string(s.id),
                "overlaps section id " + std::to_string(previous->id));
    }
    for (uint64_t b = cursor; b < s.offset; ++b) {
      if (file[b] != 0) return at(b, "padding", "a byte between sections is not zero");
    }
    cursor = s.offset + s.length;
    previous = &s;
  }
  if (cursor != file.size()) {
    return at(cursor, "end of file",
              std::to_string(file.size() - cursor) + " bytes after the last section");
  }
  return Status::success();
}

Expected<Layout> readLayout(std::span<const uint8_t> file) {
  if (Status s = checkHeader(file); !s) return s.error();
  Layout layout;
  std::memcpy(layout.key.bytes.data(), file.data() + kKeyOffset, layout.key.bytes.size());
  const uint32_t count = load<uint32_t>(file, kSectionCountOffset);
  const uint64_t table_end = tableEnd(count);
  // The count fits in the file (checkHeader), so this allocation is bounded by its size.
  layout.sections.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    GOHEAP_TRY(SectionInfo s, readEntry(file, i, table_end));
    if (i > 0 && s.id <= layout.sections.back().id) {
      return at(kHeaderBytes + i * kTableEntryBytes, sectionContext(i, s.id),
                s.id == layout.sections.back().id ? "the id is in the table twice"
                                                  : "the table is not sorted by id");
    }
    layout.sections.push_back(s);
  }
  if (Status s = checkTiling(file, layout.sections, table_end); !s) return s.error();
  return layout;
}

const SectionInfo* findIn(std::span<const SectionInfo> sections, uint32_t id) {
  auto it = std::lower_bound(sections.begin(), sections.end(), id,
                             [](const SectionInfo& s, uint32_t want) { return s.id < want; });
  return it != sections.end() && it->id == id ? &*it : nullptr;
}

Status checkSections(std::span<const uint8_t> file, std::span<const SectionInfo> sections,
                     unsigned threads) {
  std::vector<std::span<const uint8_t>> bytes;
  bytes.reserve(sections.size());
  for (const SectionInfo& s : sections) bytes.push_back(file.subspan(s.offset, s.length));
  const std::vector<uint64_t> sums = sectionChecksums(bytes, threads);
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sums[i] != sections[i].checksum) {
      return at(sections[i].offset, "section id " + std::to_string(sections[i].id),
                "the checksum of its " + std::to_string(sections[i].length) +
                    " bytes does not match (the file is corrupt)");
    }
  }
  return Status::success();
}

}  // namespace

bool IndexWriter::reserved(uint32_t section_id) {
  if (section_id < kFirstReservedSection) return false;
  if (!mistake_)
    mistake_ = Error("index section id " + std::to_string(section_id) + " is reserved");
  return true;
}

void IndexWriter::add(uint32_t section_id, uint32_t element_size, std::span<const uint8_t> bytes) {
  if (!reserved(section_id)) addSection(section_id, element_size, bytes);
}

namespace {

// Where a section of `length` bytes goes, the file being written up to
// `cursor`.
SectionInfo placed(uint32_t id, uint32_t element_size, uint64_t length, uint64_t cursor) {
  SectionInfo s;
  s.id = id;
  s.element_size = element_size;
  s.element_count = length / element_size;
  s.length = length;
  s.offset = alignUp(cursor, length >= kPageAlignedSectionBytes ? kPageBytes : kSectionAlignment);
  return s;
}

}  // namespace

bool IndexWriter::refused(uint32_t section_id, uint32_t element_size, uint64_t bytes) {
  std::optional<std::string> problem;
  if (element_size == 0) {
    problem = "has elements of 0 bytes";
  } else if (bytes % element_size != 0) {
    problem = "has " + std::to_string(bytes) + " bytes, not a whole number of " +
              std::to_string(element_size) + "-byte elements";
  } else if (std::any_of(sections_.begin(), sections_.end(),
                         [&](const Pending& p) { return p.id == section_id; }) ||
             std::any_of(last_.begin(), last_.end(),
                         [&](const Last& l) { return l.id == section_id; })) {
    problem = "is added twice";
  }
  if (problem && !mistake_) {
    mistake_ = Error("index section " + std::to_string(section_id) + " " + *problem);
  }
  return problem.has_value();
}

void IndexWriter::addSection(uint32_t section_id, uint32_t element_size,
                             std::span<const uint8_t> bytes) {
  if (!refused(section_id, element_size, bytes.size())) {
    sections_.push_back({section_id, element_size, bytes});
  }
}

void IndexWriter::addLast(uint32_t section_id, uint32_t element_size,
                          std::function<std::vector<uint8_t>()> make) {
  if (!reserved(section_id) && !refused(section_id, element_size, 0))
    last_.push_back({section_id, element_size, std::move(make)});
}

void IndexWriter::addOwned(uint32_t section_id, uint32_t element_size, std::vector<uint8_t> bytes) {
  owned_.push_back(std::move(bytes));
  add(section_id, element_size, owned_.back());
}

void IndexWriter::setDescription(const EntryDescription& description) {
  owned_.push_back(description.encode());
  addSection(kDescriptionSection, 1, owned_.back());
}

std::vector<SectionInfo> IndexWriter::plan() const {
  std::vector<SectionInfo> table;
  uint64_t cursor = tableEnd(sections_.size() + last_.size());
  for (const Pending& p : sections_) {
    table.push_back(placed(p.id, p.element_size, p.bytes.size(), cursor));
    cursor = table.back().offset + table.back().length;
  }
  return table;
}

uint64_t IndexWriter::fileSize() const {
  const std::vector<SectionInfo> table = plan();
  return table.empty() ? tableEnd(last_.size()) : table.back().offset + table.back().length;
}

Status IndexWriter::write(int fd, const Key& key, std::string_view name) const {
  if (mistake_) return *mistake_;
  std::vector<SectionInfo> table = plan();
  std::vector<std::span<const uint8_t>> bytes;
  for (const Pending& p : sections_) bytes.push_back(p.bytes);
  const std::vector<uint64_t> sums = sectionChecksums(bytes, 2);
  for (size_t i = 0; i < table.size(); ++i) {
    table[i].checksum = sums[i];
    // The bytes between sections are never written: the file reads zeros there.
    if (Status s = writeAt(fd, bytes[i], table[i].offset, name); !s) return s;
  }
  uint64_t size = fileSize();
  for (const Last& l : last_) {
    const std::vector<uint8_t> made = l.make();
    if (made.size() % l.element_size != 0) {
      return Error("index section " + std::to_string(l.id) + " was made with " +
                   std::to_string(made.size()) + " bytes, not a whole number of " +
                   std::to_string(l.element_size) + "-byte elements");
    }
    table.push_back(placed(l.id, l.element_size, made.size(), size));
    const std::span<const uint8_t> whole(made);
    table.back().checksum = sectionChecksums(std::span(&whole, 1), 1)[0];
    if (Status s = writeAt(fd, made, table.back().offset, name); !s) return s;
    size = table.back().offset + table.back().length;
  }
  std::sort(table.begin(), table.end(),
            [](const SectionInfo& a, const SectionInfo& b) { return a.id < b.id; });
  if (Status s = writeAt(fd, encodeHeaderAndTable(key, table, size), 0, name); !s) return s;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    return Error::io("cannot write " + std::string(name) + ": " + std::strerror(errno));
  }
  return Status::success();
}

Status IndexWriter::write(const std::string& path, const Key& key) const {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error::io("cannot create " + path + ": " + std::strerror(errno));
  Status written = write(fd, key, path);
  if (::close(fd) != 0 && written) {
    written = Error::io("cannot write " + path + ": " + std::strerror(errno));
  }
  return written;
}

Expected<std::shared_ptr<const IndexFile>> IndexFile::open(const std::string& path,
                                                           const Key& expected, unsigned threads) {
  GOHEAP_TRY(MappedFile file, MappedFile::open(path));
  Expected<std::shared_ptr<const IndexFile>> index = verify(std::move(file), expected, threads);
  // Verified in one pass; from now on the columns are read wherever the
  // queries go.
  if (index && (*index)->fileSize() > 0) {
    ::madvise(const_cast<uint8_t*>((*index)->file_.data()), (*index)->fileSize(), MADV_NORMAL);
  }
  return index;
}

Expected<std::shared_ptr<const IndexFile>> IndexFile::fromBytes(std::span<const uint8_t> bytes,
                                                                const Key& expected,
                                                                unsigned threads) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % kSectionAlignment != 0) {
    return Error("an index in memory must be aligned to " + std::to_string(kSectionAlignment) +
                 " bytes");
  }
  return verify(MappedFile::borrow(bytes, "<index in memory>"), expected, threads);
}

Expected<std::shared_ptr<const IndexFile>> IndexFile::verify(MappedFile file, const Key& expected,
                                                             unsigned threads) {
  const std::string name = file.path();
  Expected<Layout> layout = readLayout(file.bytes());
  if (!layout) return layout.error().inFile(name);
  if (layout->key != expected) {
    return at(kKeyOffset, "header",
              "the entry's key is " + layout->key.hex() + ", not " + expected.hex() +
                  " (it is of another input)")
        .inFile(name);
  }
  if (Status s = checkSections(file.bytes(), layout->sections, threads); !s) {
    return s.error().inFile(name);
  }
  return std::shared_ptr<const IndexFile>(
      new IndexFile(std::move(file), layout->key, std::move(layout->sections)));
}

Expected<IndexPeek> IndexFile::peek(const std::string& path) {
  GOHEAP_TRY(MappedFile file, MappedFile::open(path));
  Expected<Layout> layout = readLayout(file.bytes());
  if (!layout) return layout.error().inFile(path);
  IndexPeek peek;
  peek.key = layout->key;
  peek.file_size = file.size();
  peek.sections = layout->sections.size();
  const SectionInfo* d = findIn(layout->sections, kDescriptionSection);
  if (d == nullptr) return peek;
  if (Status s = checkSections(file.bytes(), std::span(d, 1), 1); !s) {
    peek.description = s.error();
  } else {
    peek.description = EntryDescription::decode(file.bytes().subspan(d->offset, d->length));
  }
  return peek;
}

const SectionInfo* IndexFile::find(uint32_t section_id) const {
  return findIn(sections_, section_id);
}

Expected<std::span<const uint8_t>> IndexFile::bytes(uint32_t section_id) const {
  const SectionInfo* s = find(section_id);
  if (s == nullptr) {
    return Error(path() + ": the index has no section " + std::to_string(section_id));
  }
  return file_.bytes().subspan(s->offset, s->length);
}

Expected<const SectionInfo*> IndexFile::typedSection(uint32_t section_id,
                                                     uint64_t element_size) const {
  const SectionInfo* s = find(section_id);
  if (s == nullptr) {
    return Error(path() + ": the index has no section " + std::to_string(section_id));
  }
  if (s->element_size != element_size) {
    return Error(path() + ": section " + std::to_string(section_id) + " holds elements of " +
                 std::to_string(s->element_size) + " bytes, not " + std::to_string(element_size));
  }
  return s;
}

Expected<EntryDescription> IndexFile::description() const {
  GOHEAP_TRY(std::span<const uint8_t> b, bytes(kDescriptionSection));
  return EntryDescription::decode(b);
}

}  // namespace goheap::cache
