#include "support/core_builder.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace goheap::testsupport {

namespace {

// NT_* note types (elf.h).
constexpr uint32_t kNtPrstatus = 1, kNtPrpsinfo = 3, kNtAuxv = 6, kNtFile = 0x46494c45;

uint64_t pad4(uint64_t n) {
  return (n + 3) & ~uint64_t{3};
}

void putAt(std::vector<uint8_t>& out, uint64_t at, uint64_t v, uint32_t width, bool big) {
  for (uint32_t i = 0; i < width; ++i) {
    const uint32_t shift = big ? 8 * (width - 1 - i) : 8 * i;
    out[at + i] = static_cast<uint8_t>(v >> shift);
  }
}

}  // namespace

CoreBuilder::CoreBuilder(bool is64, bool big_endian, uint16_t machine)
    : is64_(is64), big_(big_endian), machine_(machine) {}

void CoreBuilder::putWord(std::vector<uint8_t>& out, uint64_t v, uint32_t width) const {
  out.resize(out.size() + width);
  putAt(out, out.size() - width, v, width, big_);
}

CoreBuilder& CoreBuilder::segment(uint64_t vaddr, std::vector<uint8_t> bytes, uint64_t memsz,
                                  uint32_t flags) {
  const uint64_t m = memsz < bytes.size() ? bytes.size() : memsz;
  segments_.push_back({vaddr, m, flags, std::move(bytes)});
  return *this;
}

CoreBuilder& CoreBuilder::thread(uint32_t tid, uint16_t signal, const std::vector<uint64_t>& regs) {
  // elf_prstatus: siginfo (12 bytes), pr_cursig at 12; pr_pid at 32 (64-bit)
  // or 24 (32-bit); pr_reg at 112 or 72; pr_fpvalid (an int) after it.
  const uint32_t w = is64_ ? 8 : 4;
  const uint64_t pid_at = is64_ ? 32 : 24;
  const uint64_t reg_at = is64_ ? 112 : 72;
  std::vector<uint8_t> d(reg_at + regs.size() * w + (is64_ ? 8 : 4), 0);
  putAt(d, 0, signal, 4, big_);  // si_signo
  putAt(d, 12, signal, 2, big_);
  putAt(d, pid_at, tid, 4, big_);
  for (size_t i = 0; i < regs.size(); ++i) putAt(d, reg_at + i * w, regs[i], w, big_);
  return note("CORE", kNtPrstatus, std::move(d));
}

CoreBuilder& CoreBuilder::process(const std::string& name, const std::string& args) {
  // elf_prpsinfo: state, sname, zomb, nice, pr_flag (a long), uid, gid,
  // four pids, pr_fname[16], pr_psargs[80]: 136 bytes in 64-bit cores and
  // 124 in 32-bit ones (16-bit uid and gid).
  const uint64_t size = is64_ ? 136 : 124;
  std::vector<uint8_t> d(size, 0);
  const uint64_t fname = size - 96;
  for (size_t i = 0; i < name.size() && i < 16; ++i) d[fname + i] = static_cast<uint8_t>(name[i]);
  for (size_t i = 0; i < args.size() && i < 80; ++i) {
    d[fname + 16 + i] = static_cast<uint8_t>(args[i]);
  }
  return note("CORE", kNtPrpsinfo, std::move(d));
}

CoreBuilder& CoreBuilder::file(uint64_t start, uint64_t end, uint64_t page_offset,
                               const std::string& path) {
  files_.push_back({start, end, page_offset, path});
  return *this;
}

CoreBuilder& CoreBuilder::aux(uint64_t type, uint64_t value) {
  auxv_.emplace_back(type, value);
  return *this;
}

CoreBuilder& CoreBuilder::note(const std::string& name, uint32_t type, std::vector<uint8_t> desc) {
  notes_.push_back({name, type, std::move(desc)});
  return *this;
}

CoreBuilder& CoreBuilder::type(uint16_t t) {
  type_ = t;
  return *this;
}

std::vector<uint8_t> CoreBuilder::build() {
  const uint32_t w = is64_ ? 8 : 4;
  layout_ = Layout{};
  // The notes, in the order given, then NT_AUXV and NT_FILE.
  std::vector<Note> notes = notes_;
  if (!auxv_.empty()) {
    std::vector<uint8_t> d;
    for (const auto& [t, v] : auxv_) {
      putWord(d, t, w);
      putWord(d, v, w);
    }
    putWord(d, 0, w);
    putWord(d, 0, w);
    notes.push_back({"CORE", kNtAuxv, d});
  }
  if (!files_.empty()) {
    std::vector<uint8_t> d;
    putWord(d, files_.size(), w);
    putWord(d, 4096, w);
    for (const FileEntry& f : files_) {
      putWord(d, f.start, w);
      putWord(d, f.end, w);
      putWord(d, f.pgoff, w);
    }
    for (const FileEntry& f : files_) {
      d.insert(d.end(), f.path.begin(), f.path.end());
      d.push_back(0);
    }
    notes.push_back({"CORE", kNtFile, d});
  }

  const uint64_t ehsize = is64_ ? 64 : 52;
  const uint64_t phentsize = is64_ ? 56 : 32;
  const uint64_t phnum = segments_.size() + 1;
  std::vector<uint8_t> out(ehsize + phnum * phentsize, 0);
  layout_.phoff = ehsize;
  layout_.phentsize = phentsize;

  // Notes: namesz, descsz, type, name and descriptor, each padded to 4.
  layout_.notes_offset = out.size();
  for (const Note& n : notes) {
    layout_.note_offsets.push_back(out.size());
    const uint64_t at = out.size();
    out.resize(at + 12 + pad4(n.name.size() + 1) + pad4(n.desc.size()), 0);
    putAt(out, at, n.name.size() + 1, 4, big_);
    putAt(out, at + 4, n.desc.size(), 4, big_);
    putAt(out, at + 8, n.type, 4, big_);
    std::copy(n.name.begin(), n.name.end(), out.begin() + static_cast<ptrdiff_t>(at + 12));
    std::copy(n.desc.begin(), n.desc.end(),
              out.begin() + static_cast<ptrdiff_t>(at + 12 + pad4(n.name.size() + 1)));
  }
  layout_.notes_size = out.size() - layout_.notes_offset;
  for (const Seg& s : segments_) {
    out.resize((out.size() + 15) & ~size_t{15}, 0);
    layout_.segment_offsets.push_back(out.size());
    out.insert(out.end(), s.bytes.begin(), s.bytes.end());
  }

  // File header.
  out[0] = 0x7f;
  out[1] = 'E';
  out[2] = 'L';
  out[3] = 'F';
  out[4] = is64_ ? 2 : 1;
  out[5] = big_ ? 2 : 1;
  out[6] = 1;  // EV_CURRENT
  putAt(out, 16, type_, 2, big_);
  putAt(out, 18, machine_, 2, big_);
  putAt(out, 20, 1, 4, big_);
  putAt(out, is64_ ? 32 : 28, layout_.phoff, w, big_);  // e_phoff
  const uint64_t flags_end = is64_ ? 52 : 40;           // e_ehsize follows e_flags
  putAt(out, flags_end, ehsize, 2, big_);
  putAt(out, flags_end + 2, phentsize, 2, big_);
  putAt(out, flags_end + 4, phnum, 2, big_);

  // Program headers: PT_NOTE, then the PT_LOADs.
  auto header = [&](uint64_t i, uint32_t type, uint32_t flags, uint64_t offset, uint64_t vaddr,
                    uint64_t filesz, uint64_t memsz, uint64_t align) {
    const uint64_t p = layout_.phoff + i * phentsize;
    putAt(out, p, type, 4, big_);
    if (is64_) {
      putAt(out, p + 4, flags, 4, big_);
      putAt(out, p + 8, offset, 8, big_);
      putAt(out, p + 16, vaddr, 8, big_);
      putAt(out, p + 32, filesz, 8, big_);
      putAt(out, p + 40, memsz, 8, big_);
      putAt(out, p + 48, align, 8, big_);
    } else {
      putAt(out, p + 4, offset, 4, big_);
      putAt(out, p + 8, vaddr, 4, big_);
      putAt(out, p + 16, filesz, 4, big_);
      putAt(out, p + 20, memsz, 4, big_);
      putAt(out, p + 24, flags, 4, big_);
      putAt(out, p + 28, align, 4, big_);
    }
    return p;
  };
  header(0, 4, 0, layout_.notes_offset, 0, layout_.notes_size, 0, 4);
  for (size_t i = 0; i < segments_.size(); ++i) {
    const Seg& s = segments_[i];
    layout_.segment_headers.push_back(header(i + 1, 1, s.flags, layout_.segment_offsets[i], s.vaddr,
                                             s.bytes.size(), s.memsz, 4096));
  }
  return out;
}

}  // namespace goheap::testsupport
