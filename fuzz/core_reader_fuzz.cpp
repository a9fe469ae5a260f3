// libFuzzer entry for the core file reader: any input must either fail with
// an Error that says something or yield a CoreFile whose segments' bytes lie
// inside the input, whose threads and mappings can be walked, and whose
// memory image answers reads at every segment's edges without reading
// outside the input (AddressSanitizer sees any read the checks let through).
// The same bytes are also read as a snap note's text (fuzz/corpus/core_reader/
// snap_note seeds it), whose mapping lines `goheap memory` reads.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>

#include "bin/container.h"
#include "core/core_file.h"
#include "core/executable_match.h"
#include "core/memory_image.h"
#include "core/snap_note.h"

namespace {

// The input as the text of a snap's note (core/snap_note.h): every mapping
// line kept is well-formed and in order, and the note reads back as
// formatted.
void checkSnapNote(std::string_view text) {
  using goheap::core::SnapMapping;
  const goheap::core::SnapNote note = goheap::core::parseSnapNote(text);
  for (size_t i = 0; i < note.mappings.size(); ++i) {
    const SnapMapping& m = note.mappings[i];
    if (m.start >= m.end || m.rss > m.end - m.start || m.perms.size() != 4) std::abort();
    if (i > 0 && note.mappings[i - 1].end > m.start) std::abort();
  }
  const goheap::core::SnapNote back =
      goheap::core::parseSnapNote(goheap::core::formatSnapNote(note));
  if (back.mappings.size() != note.mappings.size() || back.skipped_mapping_lines != 0) std::abort();
  for (size_t i = 0; i < note.mappings.size(); ++i) {
    const SnapMapping &a = note.mappings[i], &b = back.mappings[i];
    if (a.start != b.start || a.end != b.end || a.perms != b.perms || a.offset != b.offset ||
        a.rss != b.rss || a.path != b.path) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  checkSnapNote(std::string_view(reinterpret_cast<const char*>(data), size));
  auto core = goheap::core::CoreFile::fromBytes(input);
  if (!core) {
    if (core.error().message().empty()) std::abort();  // errors must say something
    return 0;
  }
  uint64_t sum = 0;
  for (const auto& s : core->segments()) {
    if (!s.bytes.empty() &&
        (s.bytes.data() < data || s.bytes.data() + s.bytes.size() > data + size)) {
      std::abort();
    }
    if (s.bytes.size() > s.memsz) std::abort();
  }
  for (const auto& t : core->threads()) {
    for (uint64_t r : t.registers) sum += r;
  }
  for (const auto& f : core->files()) sum += f.path.size() + f.start;
  for (const auto& a : core->auxv()) sum += a.value;
  if (core->process()) sum += core->process()->name.size() + core->process()->args.size();

  // The core read as its own executable: the image then falls back on the
  // same bytes, and the match checks compare them.
  goheap::bin::Container exe;
  exe.file = goheap::bin::ByteView(input, core->bigEndian());
  for (const auto& s : core->segments()) {
    exe.segments.push_back({s.vaddr, s.memsz, s.offset, s.filesz, s.executable(), false});
  }
  const goheap::core::MemoryImage mem(*core, exe, 0);
  for (const auto& s : core->segments()) {
    for (uint64_t addr : {s.vaddr, s.vaddr + s.bytes.size() - 1, s.end() - 8, s.end()}) {
      if (auto w = mem.readWord(addr)) sum += *w;
      if (auto b = mem.read(addr, 3)) sum += (*b)[2];
    }
  }
  const auto match = goheap::core::checkExecutable(*core, exe, "/nonexistent/exe");
  sum += match.mismatch().size();
  volatile uint64_t sink = sum;
  (void)sink;
  return 0;
}
