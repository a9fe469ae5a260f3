#include "acquire/core_writer.h"

#include <elf.h>
#include <sys/procfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "acquire/this_machine.h"

namespace goheap::acquire {

namespace {

constexpr uint64_t kChunk = 1 << 20;

uint64_t alignUp(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

// Walks a copied piece in runs of at most kChunk bytes, in address order:
// visit(addr, n, in_gap) for each, `in_gap` for a run within its zero_gaps
// (untouched pages, written as zeros without being read). Stops at the
// first Error.
template <class Visit>
Status forEachRun(const PlannedSegment& s, Visit visit) {
  size_t gap = 0;
  for (uint64_t addr = s.start; addr < s.end;) {
    while (gap < s.zero_gaps.size() && s.zero_gaps[gap].end <= addr) gap++;
    const bool in_gap = gap < s.zero_gaps.size() && s.zero_gaps[gap].start <= addr;
    uint64_t until = s.end;
    if (gap < s.zero_gaps.size()) until = in_gap ? s.zero_gaps[gap].end : s.zero_gaps[gap].start;
    const uint64_t n = std::min(until - addr, kChunk);
    if (Status st = visit(addr, n, in_gap); !st) return st;
    addr += n;
  }
  return Status::success();
}

// Notes, built in memory: they are small.
class NoteBuilder {
 public:
  void add(std::string_view owner, uint32_t type, std::span<const uint8_t> desc) {
    const uint32_t namesz = static_cast<uint32_t>(owner.size() + 1);
    const uint32_t descsz = static_cast<uint32_t>(desc.size());
    appendPod(namesz);
    appendPod(descsz);
    appendPod(type);
    bytes_.insert(bytes_.end(), owner.begin(), owner.end());
    bytes_.push_back(0);
    pad();
    bytes_.insert(bytes_.end(), desc.begin(), desc.end());
    pad();
  }
  template <class T>
  void addPod(std::string_view owner, uint32_t type, const T& value) {
    add(owner, type, {reinterpret_cast<const uint8_t*>(&value), sizeof value});
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  template <class T>
  void appendPod(const T& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof v);
  }
  void pad() {
    while (bytes_.size() % 4 != 0) bytes_.push_back(0);
  }
  std::vector<uint8_t> bytes_;
};

void addThread(NoteBuilder& notes, const StoppedThread& t) {
  elf_prstatus st;
  std::memset(&st, 0, sizeof st);
  st.pr_pid = t.tid;
  st.pr_cursig = static_cast<short>(t.pending_signal);
  std::memcpy(&st.pr_reg, t.registers.data(), std::min(sizeof st.pr_reg, t.registers.size()));
  notes.addPod("CORE", NT_PRSTATUS, st);
}

std::vector<uint8_t> fileNote(const std::vector<Mapping>& mappings, uint64_t page_size) {
  std::vector<const Mapping*> files;
  for (const Mapping& m : mappings) {
    if (m.fileBacked()) files.push_back(&m);
  }
  std::vector<uint8_t> out;
  // resize and memcpy, not insert: GCC 12 at -O3 takes the insert of a
  // uint64_t's bytes for an overflow (-Wstringop-overflow, a false alarm).
  auto put = [&](uint64_t v) {
    const size_t at = out.size();
    out.resize(at + sizeof v);
    std::memcpy(out.data() + at, &v, sizeof v);
  };
  put(files.size());
  put(page_size);
  for (const Mapping* m : files) {
    put(m->start);
    put(m->end);
    put(m->offset / page_size);
  }
  for (const Mapping* m : files) {
    out.insert(out.end(), m->path.begin(), m->path.end());
    out.push_back(0);
  }
  return out;
}

std::vector<uint8_t> buildNotes(const CoreContents& c) {
  NoteBuilder notes;
  // The kernel's order: the thread that dumped (here the main thread)
  // first, the process's notes, then the other threads.
  const std::vector<StoppedThread>& threads = *c.threads;
  auto main_thread = std::find_if(threads.begin(), threads.end(),
                                  [&](const StoppedThread& t) { return t.tid == c.pid; });
  if (main_thread != threads.end()) addThread(notes, *main_thread);

  elf_prpsinfo ps;
  std::memset(&ps, 0, sizeof ps);
  ps.pr_state = 0;
  ps.pr_sname = c.state;
  ps.pr_uid = c.uid;
  ps.pr_pid = c.pid;
  std::strncpy(ps.pr_fname, c.name.c_str(), sizeof ps.pr_fname - 1);
  std::strncpy(ps.pr_psargs, c.command_line.c_str(), sizeof ps.pr_psargs - 1);
  notes.addPod("CORE", NT_PRPSINFO, ps);
  notes.add("CORE", NT_AUXV, {reinterpret_cast<const uint8_t*>(c.auxv.data()), c.auxv.size()});
  const std::vector<uint8_t> files = fileNote(*c.mappings, c.page_size);
  notes.add("CORE", NT_FILE, files);
  const std::string snap = core::formatSnapNote(c.note);
  notes.add(core::kGoheapNoteOwner, core::kNtGoheapSnap,
            {reinterpret_cast<const uint8_t*>(snap.data()), snap.size()});
  for (auto it = threads.begin(); it != threads.end(); ++it) {
    if (it != main_thread) addThread(notes, *it);
  }
  if (!c.executable.empty()) {
    notes.add(core::kGoheapNoteOwner, core::kNtGoheapExecutable, c.executable);
  }
  return notes.bytes();
}

}  // namespace

Status canWriteCores() {
  if (kElfMachine == 0) {
    return Error("goheap snap works on Linux on amd64 and arm64 only; use gcore here");
  }
  return Status::success();
}

namespace {

// Writes the copied memory, segment by segment, and makes the PT_LOAD
// headers as it goes. In writable memory a page of zeros is not written:
// the segment is split around runs of them (short runs are written, so
// that the core keeps few segments), and the left-out memory is a
// writable segment holding no bytes, which a snap core's reader takes as
// zero (core/snap_note.h). The Go heap has many such pages: freed spans,
// memory read but never written (the kernel's zero page).
class SegmentWriter {
 public:
  SegmentWriter(const CoreContents& c, CoreOutput& out, uint64_t at)
      : c_(c), out_(out), at_(at), buffer_(kChunk), zeros_(kChunk, 0) {}

  Status write(const PlannedSegment& s) {
    if (!s.copy) {
      leftOut(s, s.start, s.end);
      return Status::success();
    }
    if (!s.write) {
      // Read-only memory is copied as it is: a reader would not take left-out
      // bytes of it as zero.
      open(s, s.start);
      for (uint64_t addr = s.start; addr < s.end;) {
        const uint64_t n = std::min(s.end - addr, kChunk);
        if (Status st = readAndWrite(addr, n); !st) return st;
        addr += n;
      }
      close(s.end);
      return Status::success();
    }
    left_out_from_ = s.start;
    Status walked = forEachRun(s, [&](uint64_t addr, uint64_t n, bool in_gap) -> Status {
      if (in_gap) {
        zeroPages(addr, n);
      } else {
        if (Status st = read(addr, n); !st) return st;
        for (uint64_t p = 0; p < n; p += c_.page_size) {
          const uint8_t* page = buffer_.data() + p;
          const uint64_t len = std::min(c_.page_size, n - p);
          if (std::memcmp(page, zeros_.data(), len) == 0) {
            zeroPages(addr + p, len);
          } else if (Status st = dataPage(s, addr + p, page, len); !st) {
            return st;
          }
        }
      }
      done_ += n;
      if (c_.sink != nullptr) c_.sink->progress(done_);
      return Status::success();
    });
    if (!walked) return walked;
    finishWritable(s);
    return Status::success();
  }

  std::vector<Elf64_Phdr>& headers() { return headers_; }
  uint64_t offset() const { return at_; }

 private:
  // Zero pages from `addr`: after data they are held back, to be written if
  // data follows soon, else left out.
  void zeroPages(uint64_t addr, uint64_t n) {
    if (open_ && pending_zero_ == 0) pending_zero_from_ = addr;
    if (open_) pending_zero_ += n;
  }

  Status dataPage(const PlannedSegment& s, uint64_t addr, const uint8_t* page, uint64_t n) {
    if (open_ && pending_zero_ != 0) {
      if (pending_zero_ <= mergeBytes()) {
        for (uint64_t left = pending_zero_; left > 0;) {
          const uint64_t k = std::min(left, kChunk);
          if (Status st = put(zeros_.data(), k); !st) return st;
          left -= k;
        }
      } else {
        close(pending_zero_from_);
        left_out_from_ = pending_zero_from_;
      }
      pending_zero_ = 0;
    }
    if (!open_) {
      if (addr > left_out_from_) leftOut(s, left_out_from_, addr);
      open(s, addr);
    }
    return put(page, n);
  }

  void finishWritable(const PlannedSegment& s) {
    uint64_t data_end = s.end;
    if (open_) {
      data_end = pending_zero_ != 0 ? pending_zero_from_ : s.end;
      close(data_end);
      left_out_from_ = data_end;
    }
    pending_zero_ = 0;
    if (left_out_from_ < s.end) leftOut(s, left_out_from_, s.end);
  }

  // Zero pages the process touched are written out in runs of up to 16,
  // which saves two program headers each; longer runs are left out.
  uint64_t mergeBytes() const { return 16 * c_.page_size; }

  static uint32_t flagsOf(const PlannedSegment& s) {
    return (s.read ? PF_R : 0) | (s.write ? PF_W : 0) | (s.exec ? PF_X : 0);
  }

  void leftOut(const PlannedSegment& s, uint64_t from, uint64_t to) {
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_flags = flagsOf(s);
    ph.p_offset = at_;
    ph.p_vaddr = from;
    ph.p_memsz = to - from;
    ph.p_align = c_.page_size;
    headers_.push_back(ph);
  }

  void open(const PlannedSegment& s, uint64_t addr) {
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_flags = flagsOf(s);
    ph.p_offset = at_;
    ph.p_vaddr = addr;
    ph.p_align = c_.page_size;
    headers_.push_back(ph);
    open_ = true;
  }

  void close(uint64_t end) {
    Elf64_Phdr& ph = headers_.back();
    ph.p_memsz = end - ph.p_vaddr;
    ph.p_filesz = at_ - ph.p_offset;
    open_ = false;
  }

  Status read(uint64_t addr, uint64_t n) { return c_.read_memory(addr, {buffer_.data(), n}); }

  Status readAndWrite(uint64_t addr, uint64_t n) {
    if (Status st = read(addr, n); !st) return st;
    done_ += n;
    if (c_.sink != nullptr) c_.sink->progress(done_);
    return put(buffer_.data(), n);
  }

  Status put(const uint8_t* data, uint64_t n) {
    if (Status st = out_.append(data, n); !st) return st;
    at_ += n;
    return Status::success();
  }

  const CoreContents& c_;
  CoreOutput& out_;
  uint64_t at_;
  std::vector<uint8_t> buffer_, zeros_;
  std::vector<Elf64_Phdr> headers_;
  bool open_ = false;
  uint64_t left_out_from_ = 0;
  uint64_t pending_zero_from_ = 0, pending_zero_ = 0;
  uint64_t done_ = 0;
};

}  // namespace

namespace {

// The ELF header of a core with `phdr_count` program headers at
// `phdrs_at`; with 0xffff or more (a sparse heap's runs of touched pages,
// each with the untouched run after it), ELF's extended numbering, as the
// kernel writes it for a process with that many mappings: e_phnum says
// PN_XNUM, and section header 0, the only one, at `shdr_at`, holds the
// real count (extendedCount).
Elf64_Ehdr elfHeader(size_t phdr_count, uint64_t phdrs_at, uint64_t shdr_at) {
  Elf64_Ehdr eh;
  std::memset(&eh, 0, sizeof eh);
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
  eh.e_type = ET_CORE;
  eh.e_machine = kElfMachine;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = phdrs_at;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = static_cast<uint16_t>(std::min<size_t>(phdr_count, PN_XNUM));
  if (phdr_count >= PN_XNUM) {
    eh.e_shoff = shdr_at;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 1;
    eh.e_shstrndx = SHN_UNDEF;
  }
  return eh;
}

Elf64_Shdr extendedCount(size_t phdr_count) {
  Elf64_Shdr count{};
  count.sh_type = SHT_NULL;
  count.sh_info = static_cast<uint32_t>(phdr_count);
  return count;
}

Status checkSegmentCount(size_t phdr_count) {
  if (phdr_count <= UINT32_MAX) return Status::success();
  return Error("the process's memory needs " + std::to_string(phdr_count) +
               " segments, more than an ELF core can list; use gcore");
}

Elf64_Phdr noteHeader(uint64_t notes_at, uint64_t size) {
  Elf64_Phdr note{};
  note.p_type = PT_NOTE;
  note.p_offset = notes_at;
  note.p_filesz = size;
  note.p_align = 4;
  return note;
}

}  // namespace

Expected<uint64_t> writeCore(const CoreContents& c, CoreOutput& out) {
  if (Status s = canWriteCores(); !s) return s.error();
  // The memory first, the notes and program headers after it (e_phoff may
  // point anywhere): how many segments there are is known only once every
  // page has been looked at. The header is written last, at the front.
  Elf64_Ehdr eh;
  std::memset(&eh, 0, sizeof eh);
  if (Status s = out.append(&eh, sizeof eh); !s) return s.error();
  const std::vector<uint8_t> padding(c.page_size, 0);
  if (Status s = out.append(padding.data(), c.page_size - sizeof eh); !s) return s.error();

  SegmentWriter segments(c, out, c.page_size);
  for (const PlannedSegment& s : c.plan->segments) {
    if (Status st = segments.write(s); !st) return st.error();
  }
  const std::vector<uint8_t> notes = buildNotes(c);
  const uint64_t notes_at = segments.offset();
  if (Status s = out.append(notes.data(), notes.size()); !s) return s.error();
  const uint64_t phdrs_at = alignUp(notes_at + notes.size(), 8);
  if (Status s = out.append(padding.data(), phdrs_at - notes_at - notes.size()); !s) {
    return s.error();
  }
  std::vector<Elf64_Phdr> phdrs;
  phdrs.reserve(segments.headers().size() + 1);
  phdrs.push_back(noteHeader(notes_at, notes.size()));
  phdrs.insert(phdrs.end(), segments.headers().begin(), segments.headers().end());
  if (Status s = checkSegmentCount(phdrs.size()); !s) return s.error();
  if (Status s = out.append(phdrs.data(), phdrs.size() * sizeof(Elf64_Phdr)); !s) {
    return s.error();
  }
  uint64_t total = phdrs_at + phdrs.size() * sizeof(Elf64_Phdr);
  eh = elfHeader(phdrs.size(), phdrs_at, total);
  if (phdrs.size() >= PN_XNUM) {
    const Elf64_Shdr count = extendedCount(phdrs.size());
    if (Status s = out.append(&count, sizeof count); !s) return s.error();
    total += sizeof count;
  }
  if (Status s = out.overwrite(0, &eh, sizeof eh); !s) return s.error();
  return total;
}

Expected<uint64_t> writeCoreInOrder(const CoreContents& c, CoreOutput& out) {
  if (Status s = canWriteCores(); !s) return s.error();
  // Every header from the plan, before any memory: a copied piece is one
  // PT_LOAD holding all its bytes (zero pages and gaps included), a piece
  // left out one holding none.
  std::vector<Elf64_Phdr> loads;
  uint64_t data_bytes = 0;
  for (const PlannedSegment& s : c.plan->segments) {
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_flags = (s.read ? PF_R : 0) | (s.write ? PF_W : 0) | (s.exec ? PF_X : 0);
    ph.p_vaddr = s.start;
    ph.p_memsz = s.size();
    ph.p_filesz = s.copy ? s.size() : 0;
    ph.p_align = c.page_size;
    data_bytes += ph.p_filesz;
    loads.push_back(ph);
  }
  const size_t phdr_count = loads.size() + 1;
  if (Status s = checkSegmentCount(phdr_count); !s) return s.error();
  const std::vector<uint8_t> notes = buildNotes(c);
  const uint64_t phdrs_at = sizeof(Elf64_Ehdr);
  const uint64_t shdr_at = phdrs_at + phdr_count * sizeof(Elf64_Phdr);
  const uint64_t notes_at = shdr_at + (phdr_count >= PN_XNUM ? sizeof(Elf64_Shdr) : 0);
  const uint64_t data_at = alignUp(notes_at + notes.size(), c.page_size);
  uint64_t at = data_at;
  for (Elf64_Phdr& ph : loads) {
    ph.p_offset = at;
    at += ph.p_filesz;
  }

  const Elf64_Ehdr eh = elfHeader(phdr_count, phdrs_at, shdr_at);
  if (Status s = out.append(&eh, sizeof eh); !s) return s.error();
  const Elf64_Phdr note = noteHeader(notes_at, notes.size());
  if (Status s = out.append(&note, sizeof note); !s) return s.error();
  if (Status s = out.append(loads.data(), loads.size() * sizeof(Elf64_Phdr)); !s) {
    return s.error();
  }
  if (phdr_count >= PN_XNUM) {
    const Elf64_Shdr count = extendedCount(phdr_count);
    if (Status s = out.append(&count, sizeof count); !s) return s.error();
  }
  if (Status s = out.append(notes.data(), notes.size()); !s) return s.error();
  const std::vector<uint8_t> padding(data_at - notes_at - notes.size(), 0);
  if (Status s = out.append(padding.data(), padding.size()); !s) return s.error();

  // The memory, the zero gaps of a copied piece written as zeros unread.
  std::vector<uint8_t> buffer(kChunk);
  uint64_t done = 0;
  for (const PlannedSegment& s : c.plan->segments) {
    if (!s.copy) continue;
    Status walked = forEachRun(s, [&](uint64_t addr, uint64_t n, bool in_gap) -> Status {
      if (in_gap) {
        std::fill_n(buffer.begin(), n, uint8_t{0});
      } else if (Status st = c.read_memory(addr, {buffer.data(), n}); !st) {
        return st;
      }
      if (Status st = out.append(buffer.data(), n); !st) return st;
      done += n;
      if (c.sink != nullptr) c.sink->progress(done);
      return Status::success();
    });
    if (!walked) return walked.error();
  }
  return data_at + data_bytes;
}

Status FileOutput::append(const void* data, size_t n) {
  if (n != 0 && std::fwrite(data, 1, n, out_) != n) {
    return Error::io(std::string("cannot write the core: ") + std::strerror(errno));
  }
  return Status::success();
}

Status FileOutput::overwrite(uint64_t offset, const void* data, size_t n) {
  const long back = std::ftell(out_);
  if (back < 0 || std::fseek(out_, static_cast<long>(offset), SEEK_SET) != 0) {
    return Error::needsInput("the core must go to a file (it is written out of order), not a pipe");
  }
  if (Status s = append(data, n); !s) return s;
  if (std::fseek(out_, back, SEEK_SET) != 0 || std::fflush(out_) != 0) {
    return Error::io(std::string("cannot write the core: ") + std::strerror(errno));
  }
  return Status::success();
}

Status MemoryOutput::append(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  bytes_.insert(bytes_.end(), p, p + n);
  return Status::success();
}

Status MemoryOutput::overwrite(uint64_t offset, const void* data, size_t n) {
  if (offset > bytes_.size() || n > bytes_.size() - offset) {
    return Error("internal error: overwriting bytes of the core not yet written");
  }
  std::memcpy(bytes_.data() + offset, data, n);
  return Status::success();
}

Status MemoryOutput::writeTo(std::FILE* out, Sink& sink) {
  constexpr size_t kPiece = 8 << 20;
  for (size_t at = 0; at < bytes_.size(); at += kPiece) {
    FileOutput file(out);
    if (Status s = file.append(bytes_.data() + at, std::min(kPiece, bytes_.size() - at)); !s) {
      return s;
    }
    sink.progress(std::min(at + kPiece, bytes_.size()));
  }
  if (std::fflush(out) != 0) {
    return Error::io(std::string("cannot write the core: ") + std::strerror(errno));
  }
  return Status::success();
}

}  // namespace goheap::acquire
