// core::CoreFile and core::MemoryImage over small cores written by
// tests/support/core_builder.h, and, for amd64's NT_PRSTATUS and
// NT_PRPSINFO, notes laid out by glibc's own structs (sys/procfs.h).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "bin/container.h"
#include "core/core_file.h"
#include "core/executable_match.h"
#include "core/memory_image.h"
#include "support/core_builder.h"

#if defined(__x86_64__)
#include <sys/procfs.h>
#include <sys/user.h>
#endif

namespace goheap {
namespace {

using testsupport::CoreBuilder;

std::vector<uint8_t> filled(size_t n, uint8_t first) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(first + i);
  return v;
}

std::string offsetText(uint64_t off) {
  return "at byte offset " + std::to_string(off);
}

TEST(CoreFile, DetectsCoresByContent) {
  CoreBuilder b;
  const auto core = b.build();
  EXPECT_TRUE(core::isElfCore(core));
  const auto exe = CoreBuilder().type(2).build();  // ET_EXEC
  EXPECT_FALSE(core::isElfCore(exe));
  const auto be32 = CoreBuilder(false, true, 40).build();
  EXPECT_TRUE(core::isElfCore(be32));
  const std::vector<uint8_t> dump{'g', 'o', '1', '.', '7', ' ', 'h', 'e', 'a', 'p'};
  EXPECT_FALSE(core::isElfCore(dump));
  EXPECT_FALSE(core::isElfCore(std::span<const uint8_t>(core.data(), 10)));
  auto not_core = core::CoreFile::fromBytes(exe);
  ASSERT_FALSE(not_core);
  EXPECT_NE(not_core.error().message().find("not a core file"), std::string::npos);
}

TEST(CoreFile, SegmentsNotesAndRegistersOfAmd64) {
  CoreBuilder b;
  std::vector<uint64_t> regs(27);
  for (size_t i = 0; i < regs.size(); ++i) regs[i] = 0x1000 + i;
  b.segment(0x400000, filled(4096, 1), 0x10000, 5)
      .segment(0xc000000000, filled(8192, 7), 0, 6)
      .thread(4242, 6, regs)
      .thread(4243, 0, regs)
      .process("coreprog", "./coreprog -x")
      .file(0x400000, 0x410000, 0, "/tmp/coreprog")
      .file(0x410000, 0x420000, 16, "/tmp/coreprog")
      .aux(6, 4096)
      .aux(9, 0x401000);
  const auto bytes = b.build();
  auto core = core::CoreFile::fromBytes(bytes);
  ASSERT_TRUE(core) << core.error().message();
  EXPECT_EQ(core->arch(), "amd64");
  EXPECT_EQ(core->ptrSize(), 8u);
  EXPECT_FALSE(core->bigEndian());
  ASSERT_EQ(core->segments().size(), 2u);
  EXPECT_EQ(core->segments()[0].vaddr, 0x400000u);
  EXPECT_EQ(core->segments()[0].bytes.size(), 4096u);
  EXPECT_EQ(core->segments()[0].missing(), 0x10000u - 4096);
  EXPECT_TRUE(core->segments()[0].executable());
  EXPECT_FALSE(core->segments()[0].writable());
  EXPECT_EQ(core->segments()[1].bytes.data(), bytes.data() + b.layout().segment_offsets[1]);
  ASSERT_EQ(core->threads().size(), 2u);
  const core::Thread& t = core->threads()[0];
  EXPECT_EQ(t.tid, 4242u);
  EXPECT_EQ(t.signal, 6u);
  ASSERT_TRUE(t.has_registers);
  // sys/user.h's user_regs_struct: rbp is the 5th word, rip the 17th, rsp the 20th.
  EXPECT_EQ(t.fp, 0x1004u);
  EXPECT_EQ(t.pc, 0x1010u);
  EXPECT_EQ(t.sp, 0x1013u);
  EXPECT_EQ(t.registers.size(), 27u);
  ASSERT_TRUE(core->process());
  EXPECT_EQ(core->process()->name, "coreprog");
  EXPECT_EQ(core->process()->args, "./coreprog -x");
  ASSERT_EQ(core->files().size(), 2u);
  EXPECT_EQ(core->files()[1].start, 0x410000u);
  EXPECT_EQ(core->files()[1].end, 0x420000u);
  EXPECT_EQ(core->files()[1].file_offset, 16u * 4096);
  EXPECT_EQ(core->files()[1].path, "/tmp/coreprog");
  EXPECT_EQ(core->aux(9), 0x401000u);
  EXPECT_EQ(core->aux(6), 4096u);
  EXPECT_FALSE(core->aux(7));
  EXPECT_EQ(core->omittedBytes(), 0x10000u - 4096);
  EXPECT_EQ(core->truncatedBytes(), 0u);
}

#if defined(__x86_64__)
// The notes as glibc lays out struct elf_prstatus and elf_prpsinfo: an oracle
// independent of the builder's offsets and the reader's.
TEST(CoreFile, NotesAsGlibcLaysThemOut) {
  struct elf_prstatus st;
  std::memset(&st, 0, sizeof st);
  st.pr_pid = 77;
  st.pr_cursig = 11;
  user_regs_struct regs;
  std::memset(&regs, 0, sizeof regs);
  regs.rip = 0x45a0c1;
  regs.rsp = 0xc000123450;
  regs.rbp = 0xc000123480;
  regs.rax = 42;
  static_assert(sizeof regs == sizeof st.pr_reg);
  std::memcpy(&st.pr_reg, &regs, sizeof regs);
  std::vector<uint8_t> prstatus(sizeof st);
  std::memcpy(prstatus.data(), &st, sizeof st);

  struct elf_prpsinfo ps;
  std::memset(&ps, 0, sizeof ps);
  std::strcpy(ps.pr_fname, "retention");
  std::strcpy(ps.pr_psargs, "retention a b");
  std::vector<uint8_t> prpsinfo(sizeof ps);
  std::memcpy(prpsinfo.data(), &ps, sizeof ps);

  CoreBuilder b;
  b.note("CORE", 1, prstatus).note("CORE", 3, prpsinfo);
  const auto built = b.build();
  auto core = core::CoreFile::fromBytes(built);
  ASSERT_TRUE(core) << core.error().message();
  ASSERT_EQ(core->threads().size(), 1u);
  const core::Thread& t = core->threads()[0];
  EXPECT_EQ(t.tid, 77u);
  EXPECT_EQ(t.signal, 11u);
  EXPECT_EQ(t.pc, regs.rip);
  EXPECT_EQ(t.sp, regs.rsp);
  EXPECT_EQ(t.fp, regs.rbp);
  const auto names = core::registerNames(62, true);
  ASSERT_EQ(names.size(), t.registers.size());
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "rax") {
      EXPECT_EQ(t.registers[i], 42u);
    }
  }
  ASSERT_TRUE(core->process());
  EXPECT_EQ(core->process()->name, "retention");
  EXPECT_EQ(core->process()->args, "retention a b");
}
#endif

TEST(CoreFile, Arm64S390xAndArmRegisters) {
  // arm64: user_pt_regs is x0..x30, sp, pc, pstate.
  std::vector<uint64_t> regs(34);
  for (size_t i = 0; i < regs.size(); ++i) regs[i] = 0x100 + i;
  {
    CoreBuilder b(true, false, 183);
    b.thread(9, 5, regs);
    const auto built = b.build();
    auto core = core::CoreFile::fromBytes(built);
    ASSERT_TRUE(core) << core.error().message();
    EXPECT_EQ(core->arch(), "arm64");
    const core::Thread& t = core->threads().at(0);
    EXPECT_EQ(t.pc, 0x100u + 32);
    EXPECT_EQ(t.sp, 0x100u + 31);
    EXPECT_EQ(t.fp, 0x100u + 29);
    EXPECT_EQ(t.lr, 0x100u + 30);
  }
  {
    // s390x, big-endian: s390_regs is the PSW (mask, address), r0..r15, ...
    CoreBuilder b(true, true, 22);
    std::vector<uint64_t> s390(18 + 8 + 1);  // + 16 access registers (4 bytes), orig_gpr2
    for (size_t i = 0; i < s390.size(); ++i) s390[i] = 0x200 + i;
    b.thread(10, 6, s390).segment(0x1000, {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0});
    const auto bytes = b.build();
    auto core = core::CoreFile::fromBytes(bytes);
    ASSERT_TRUE(core) << core.error().message();
    EXPECT_EQ(core->arch(), "s390x");
    EXPECT_TRUE(core->bigEndian());
    const core::Thread& t = core->threads().at(0);
    EXPECT_EQ(t.tid, 10u);
    EXPECT_EQ(t.pc, 0x201u);
    EXPECT_EQ(t.sp, 0x200u + 17);
    core::MemoryImage mem(*core);
    EXPECT_EQ(*mem.readWord(0x1000), 0x123456789abcdef0u);
    EXPECT_EQ(*mem.readUint(0x1004, 4), 0x9abcdef0u);
  }
  {
    // 32-bit ARM: r0..r15, cpsr, orig_r0; pr_reg at 72.
    CoreBuilder b(false, false, 40);
    std::vector<uint64_t> arm(18);
    for (size_t i = 0; i < arm.size(); ++i) arm[i] = 0x300 + i;
    b.thread(11, 11, arm)
        .segment(0x8000, {1, 2, 3, 4, 5, 6, 7, 8})
        .file(0x8000, 0x9000, 0, "/bin/x")
        .aux(9, 0x8010);
    const auto built = b.build();
    auto core = core::CoreFile::fromBytes(built);
    ASSERT_TRUE(core) << core.error().message();
    EXPECT_EQ(core->arch(), "arm");
    EXPECT_EQ(core->ptrSize(), 4u);
    const core::Thread& t = core->threads().at(0);
    EXPECT_EQ(t.pc, 0x300u + 15);
    EXPECT_EQ(t.sp, 0x300u + 13);
    EXPECT_EQ(t.lr, 0x300u + 14);
    EXPECT_EQ(core->files().at(0).path, "/bin/x");
    EXPECT_EQ(core->aux(9), 0x8010u);
    core::MemoryImage mem(*core);
    EXPECT_EQ(*mem.readWord(0x8004), 0x08070605u);
  }
}

TEST(MemoryImage, ReadsFromTheCoreThenTheExecutable) {
  CoreBuilder b;
  // Text: the first page in the core, the rest left out; data: in the core.
  b.segment(0x400000, filled(4096, 0), 0x3000, 5).segment(0x500000, filled(64, 0x80), 64, 6);
  const auto built = b.build();
  auto core = core::CoreFile::fromBytes(built);
  ASSERT_TRUE(core) << core.error().message();
  core::MemoryImage alone(*core);
  EXPECT_EQ((*alone.read(0x400010, 4))[0], 0x10);
  EXPECT_EQ(alone.sourceOf(0x500000), core::MemorySource::Core);
  auto missing = alone.read(0x401000, 8);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("0x401000 (8 bytes) is not in the core"),
            std::string::npos)
      << missing.error().message();
  EXPECT_NE(missing.error().message().find("leaves it out"), std::string::npos);
  auto nowhere = alone.readWord(0x7000000);
  ASSERT_FALSE(nowhere);
  EXPECT_NE(nowhere.error().message().find("no segment"), std::string::npos);
  EXPECT_FALSE(alone.read(0x50003c, 8));  // runs past the segment's end

  // An executable linked at 0x400000 whose file holds all three pages (text
  // and read-only data) and a writable page the image must not use.
  std::vector<uint8_t> exe_bytes(0x4000);
  for (size_t i = 0; i < exe_bytes.size(); ++i) exe_bytes[i] = static_cast<uint8_t>(i);
  bin::Container exe;
  exe.file = bin::ByteView(exe_bytes, false);
  exe.segments.push_back({0x400000, 0x3000, 0, 0x3000, true, false});
  exe.segments.push_back({0x503000, 0x1000, 0x3000, 0x1000, false, true});
  core::MemoryImage mem(*core, exe, 0);
  auto text = mem.read(0x401000, 8);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(text->data(), exe_bytes.data() + 0x1000);
  EXPECT_EQ(mem.sourceOf(0x401000), core::MemorySource::Executable);
  EXPECT_EQ(mem.sourceOf(0x400000), core::MemorySource::Core);
  // Across the core's page and the next: the executable holds all of it.
  EXPECT_TRUE(mem.read(0x400ff8, 16));
  EXPECT_FALSE(mem.read(0x503000, 8));  // writable: not from the file
  // With a load bias.
  core::MemoryImage moved(*core, exe, 0x1000);
  EXPECT_EQ((*moved.read(0x402000, 1))[0], exe_bytes[0x1000]);
}

TEST(CoreFile, CutShortCoreKeepsWhatIsThereAndWarns) {
  CoreBuilder b;
  b.segment(0x1000, filled(256, 0)).segment(0x2000, filled(256, 0));
  auto bytes = b.build();
  const uint64_t second = b.layout().segment_offsets[1];
  bytes.resize(second + 100);
  auto core = core::CoreFile::fromBytes(bytes);
  ASSERT_TRUE(core) << core.error().message();
  ASSERT_EQ(core->segments().size(), 2u);
  EXPECT_EQ(core->segments()[1].bytes.size(), 100u);
  EXPECT_EQ(core->truncatedBytes(), 156u);
  ASSERT_FALSE(core->warnings().empty());
  EXPECT_NE(core->warnings()[0].find("cut short"), std::string::npos);
  EXPECT_NE(core->warnings()[0].find("156 bytes missing"), std::string::npos);
  core::MemoryImage mem(*core);
  EXPECT_TRUE(mem.read(0x2000, 100));
  auto past = mem.read(0x2000 + 100, 8);
  ASSERT_FALSE(past);
  EXPECT_NE(past.error().message().find("cut short"), std::string::npos);
}

TEST(CoreFileCorrupt, ErrorsNameTheOffset) {
  CoreBuilder b;
  b.segment(0x1000, filled(64, 0)).thread(1, 6, std::vector<uint64_t>(27)).file(0, 4096, 0, "/x");
  const auto good = b.build();
  const auto layout = b.layout();
  ASSERT_TRUE(core::CoreFile::fromBytes(good));

  auto expectError = [](std::vector<uint8_t> bytes, uint64_t offset, const std::string& what) {
    auto core = core::CoreFile::fromBytes(bytes);
    ASSERT_FALSE(core) << what;
    EXPECT_NE(core.error().message().find(offsetText(offset)), std::string::npos)
        << core.error().message();
    EXPECT_NE(core.error().message().find(what), std::string::npos) << core.error().message();
  };
  // A header cut short.
  expectError(std::vector<uint8_t>(good.begin(), good.begin() + 40), 0, "truncated file header");
  // Program headers past the end of the file.
  expectError(std::vector<uint8_t>(good.begin(), good.begin() + 64 + 56 + 10), layout.phoff,
              "run past the end of the file");
  // The first note's descriptor size overruns the segment.
  {
    auto bad = good;
    const uint64_t note = layout.note_offsets[0];
    bad[note + 4] = 0xff;
    bad[note + 5] = 0xff;
    expectError(bad, note, "overruns its segment");
  }
  // NT_PRSTATUS shorter than the registers.
  {
    CoreBuilder s;
    s.thread(1, 6, std::vector<uint64_t>(3));
    auto bytes = s.build();
    expectError(bytes, s.layout().note_offsets[0] + 12 + 8, "shorter than the 328");
  }
  // NT_FILE claiming more mappings than fit.
  {
    auto bad = good;
    const uint64_t note = layout.note_offsets[1];
    const uint64_t desc = note + 12 + 8;
    bad[desc + 3] = 0x10;
    expectError(bad, desc, "mappings do not fit");
  }
  // The notes segment itself past the end.
  {
    auto bad = good;
    const uint64_t ph = layout.phoff;
    bad[ph + 32 + 2] = 0x10;  // p_filesz of PT_NOTE
    expectError(bad, layout.notes_offset, "run past the end of the file");
  }
  // A segment whose filesz is larger than memsz.
  {
    auto bad = good;
    const uint64_t ph = layout.segment_headers[0];
    bad[ph + 40] = 1;  // p_memsz: 1
    expectError(bad, ph, "more than its 1 bytes of memory");
  }
  // Overlapping segments.
  {
    CoreBuilder o;
    o.segment(0x1000, filled(64, 0)).segment(0x1020, filled(64, 0));
    auto bytes = o.build();
    expectError(bytes, o.layout().segment_offsets[1], "overlaps");
  }
}

TEST(ExecutableMatch, EntryPathAndText) {
  std::vector<uint8_t> exe_bytes(0x2000);
  for (size_t i = 0; i < exe_bytes.size(); ++i) exe_bytes[i] = static_cast<uint8_t>(i * 7);
  bin::Container exe;
  exe.file = bin::ByteView(exe_bytes, false);
  exe.entry = 0x401000;
  exe.segments.push_back({0x400000, 0x2000, 0, 0x2000, true, false});
  // The build info, where the core holds it (in the first page here).
  exe.sections.push_back({".go.buildinfo", 0x400f00, 0xf00, 32, true, false});

  std::vector<uint8_t> page(exe_bytes.begin(), exe_bytes.begin() + 0x1000);
  CoreBuilder b;
  b.segment(0x400000, page, 0x2000, 5)
      .file(0x400000, 0x402000, 0, "/no/such/dir/prog")
      .aux(9, 0x401000);
  const auto built = b.build();
  auto core = core::CoreFile::fromBytes(built);
  ASSERT_TRUE(core) << core.error().message();
  auto m = core::checkExecutable(*core, exe, "/no/such/dir/prog");
  EXPECT_TRUE(m.matches()) << m.mismatch();
  EXPECT_EQ(m.bias, 0u);
  ASSERT_FALSE(m.checks.empty());
  for (const auto& c : m.checks) EXPECT_TRUE(c.checked && c.ok) << c.name << ": " << c.detail;

  // Another entry point.
  bin::Container other = exe;
  other.entry = 0x401040;
  auto bad = core::checkExecutable(*core, other, "/elsewhere/prog");
  EXPECT_FALSE(bad.matches());
  EXPECT_EQ(bad.mismatch(), "core and executable do not match: entry 0x401000 vs 0x401040");
  EXPECT_NE(bad.checks[0].detail.find("by name only"), std::string::npos);

  // Other text bytes.
  std::vector<uint8_t> changed = exe_bytes;
  changed[0x20] ^= 1;
  other = exe;
  other.file = bin::ByteView(changed, false);
  auto text = core::checkExecutable(*core, other, "/no/such/dir/prog");
  EXPECT_FALSE(text.matches());
  EXPECT_NE(text.mismatch().find("text: text bytes differ at 0x400020"), std::string::npos)
      << text.mismatch();
  changed = exe_bytes;
  changed[0xf10] ^= 1;
  other.file = bin::ByteView(changed, false);
  auto info = core::checkExecutable(*core, other, "/no/such/dir/prog");
  EXPECT_FALSE(info.matches());
  EXPECT_NE(info.mismatch().find("buildinfo: build info differs at 0x400f10"), std::string::npos)
      << info.mismatch();

  // A position-independent executable: the bias is AT_ENTRY - e_entry.
  bin::Container pie = exe;
  pie.position_independent = true;
  pie.entry = 0x1000;
  pie.segments[0].vaddr = 0;
  pie.sections[0].addr = 0xf00;
  auto p = core::checkExecutable(*core, pie, "/no/such/dir/prog");
  EXPECT_EQ(p.bias, 0x400000u);
  EXPECT_TRUE(p.matches()) << p.mismatch();
  ASSERT_FALSE(p.checks.empty());
  for (const auto& c : p.checks) EXPECT_TRUE(c.checked && c.ok) << c.name << ": " << c.detail;
}

}  // namespace
}  // namespace goheap
