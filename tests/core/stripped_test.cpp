// Stripped executables (-ldflags='-s -w') for core files. The oracle is the
// unstripped twin's DWARF: -s -w leaves every loaded section's bytes and
// addresses as they were (make-dumps.sh builds coreprog both ways), so the
// same core read with either executable must give the same layouts, the
// same globals and the same heap, goroutines, roots and finalizers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "bin/binary.h"
#include "bin/debug_info.h"
#include "core/core_file.h"
#include "core/executable_match.h"
#include "core/goroutines.h"
#include "core/heap_walk.h"
#include "core/memory_image.h"
#include "core/pointer_masks.h"
#include "core/roots.h"
#include "core/runtime_layout.h"
#include "core/runtime_types.h"
#include "goruntime/runtime_table.h"
#include "support/go_versions.h"
#include "support/kernel_core.h"
#include "support/param_names.h"

namespace goheap {
namespace {

void expectSameSlots(const core::FieldSlot& a, const core::FieldSlot& b, const char* what) {
  EXPECT_EQ(a.offset, b.offset) << what;
  EXPECT_EQ(a.size, b.size) << what;
}

class StrippedCore : public ::testing::TestWithParam<std::string> {};

TEST_P(StrippedCore, ReadsAsTheUnstrippedTwin) {
  const std::string dir = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  const std::string exe = dir + "/coreprog", stripped_exe = dir + "/coreprog-stripped";
  if (!std::filesystem::exists(stripped_exe)) GTEST_SKIP() << "no " << stripped_exe;
  testing::KernelCoreRun run;
  {
    // Every allocation sampled (the program inherits the environment), so
    // that the memory profile has buckets to compare. (Go 1.24's linker
    // turns profiling off in coreprog, whose dump has no samples either.)
    setenv("GODEBUG", "memprofilerate=1", 1);
    testing::runForKernelCore(exe, run, {run.dir.path + "/heap.dump"});
    unsetenv("GODEBUG");
  }
  if (!run.skip.empty()) GTEST_SKIP() << run.skip;
  ASSERT_EQ(run.failure, "");

  auto core = core::CoreFile::open(run.core);
  ASSERT_TRUE(core) << core.error().message();
  auto full = bin::Binary::open(exe);
  ASSERT_TRUE(full) << full.error().message();
  auto stripped = bin::Binary::open(stripped_exe);
  ASSERT_TRUE(stripped) << stripped.error().message();
  ASSERT_FALSE(bin::DebugInfo::read(stripped->container())) << "the twin has DWARF";
  const bin::Container& c = full->container();
  const bin::Container& sc = stripped->container();
  const uint64_t bias = core::checkExecutable(*core, c, exe).bias;
  const core::MemoryImage mem(*core, c, bias);
  const core::MemoryImage smem(*core, sc, core::checkExecutable(*core, sc, stripped_exe).bias);
  ASSERT_EQ(smem.bias(), bias);

  auto dwarf = core::runtimeTypes(*full, mem);
  ASSERT_TRUE(dwarf) << dwarf.error().message();
  EXPECT_EQ(dwarf->source, "DWARF");
  auto table = core::runtimeTypes(*stripped, smem);
  ASSERT_TRUE(table) << table.error().message();
  EXPECT_EQ(table->source, "layout table " + GetParam() + " amd64");

  // Every global found is where the DWARF says.
  for (const char* name :
       {"runtime.mheap_", "runtime.allgs", "runtime.firstmoduledata", "runtime.waitReasonStrings",
        "runtime.itabTable", "runtime.memstats", "runtime.gcController", "runtime.mbuckets"}) {
    uint64_t want = 0, got = 0;
    for (const bin::GlobalVariable& g : dwarf->info().globals())
      want = g.name == name ? g.address : want;
    for (const bin::GlobalVariable& g : table->info().globals())
      got = g.name == name ? g.address : got;
    EXPECT_NE(want, 0u) << name;
    EXPECT_EQ(got, want) << name;
  }

  // The itabs the runtime made as the program ran (hash 0) are among
  // those the stripped build finds, through a table found by its contents.
  auto itabs = core::readItabs(mem, dwarf->info(), nullSink());
  ASSERT_TRUE(itabs) << itabs.error().message();
  auto stripped_itabs = core::readItabs(smem, table->info(), nullSink());
  ASSERT_TRUE(stripped_itabs) << stripped_itabs.error().message();
  EXPECT_EQ(stripped_itabs->addr, itabs->addr);
  const bin::TypeId itab_type = dwarf->info().typeByName("runtime.itab") != bin::kNoType
                                    ? dwarf->info().typeByName("runtime.itab")
                                    : dwarf->info().typeByName("internal/abi.ITab");
  const bin::Field* hash = dwarf->info().fieldNamed(itab_type, "hash");
  if (hash == nullptr) hash = dwarf->info().fieldNamed(itab_type, "Hash");
  ASSERT_NE(hash, nullptr);
  uint64_t made_at_run_time = 0;
  for (uint64_t a : itabs->addr) {
    auto h = mem.readUint(a + hash->offset, 4);
    made_at_run_time += h && *h == 0 ? 1 : 0;
  }
  EXPECT_GE(made_at_run_time, 24u) << "coreprog's dynamic itabs";

  // The layouts.
  auto l = core::readRuntimeLayout(dwarf->info(), c.ptr_size);
  ASSERT_TRUE(l) << l.error().message();
  auto sl = core::readRuntimeLayout(table->info(), sc.ptr_size);
  ASSERT_TRUE(sl) << sl.error().message();
  EXPECT_EQ(sl->mheap_addr, l->mheap_addr);
  EXPECT_EQ(sl->mheap_allspans, l->mheap_allspans);
  EXPECT_EQ(sl->mspan_size, l->mspan_size);
  expectSameSlots(sl->span_start_addr, l->span_start_addr, "startAddr");
  expectSameSlots(sl->span_npages, l->span_npages, "npages");
  expectSameSlots(sl->span_freeindex, l->span_freeindex, "freeindex");
  expectSameSlots(sl->span_nelems, l->span_nelems, "nelems");
  expectSameSlots(sl->span_alloc_bits, l->span_alloc_bits, "allocBits");
  expectSameSlots(sl->span_elemsize, l->span_elemsize, "elemsize");
  expectSameSlots(sl->span_state, l->span_state, "state");
  auto b = core::readHeapBitsLayout(dwarf->info(), c.ptr_size, c.arch);
  ASSERT_TRUE(b) << b.error().message();
  auto sb = core::readHeapBitsLayout(table->info(), sc.ptr_size, sc.arch);
  ASSERT_TRUE(sb) << sb.error().message();
  EXPECT_EQ(sb->format, b->format);
  EXPECT_EQ(sb->mheap_arenas, b->mheap_arenas);
  EXPECT_EQ(sb->arena_l1, b->arena_l1);
  EXPECT_EQ(sb->arena_l2, b->arena_l2);
  EXPECT_EQ(sb->arena_bytes, b->arena_bytes);
  EXPECT_EQ(sb->arena_spans, b->arena_spans);
  EXPECT_EQ(sb->arena_bitmap, b->arena_bitmap);
  EXPECT_EQ(sb->arena_bitmap_bytes, b->arena_bitmap_bytes);
  expectSameSlots(sb->span_spanclass, b->span_spanclass, "spanclass");
  expectSameSlots(sb->span_large_type, b->span_large_type, "largeType");
  expectSameSlots(sb->type_size, b->type_size, "Size_");
  expectSameSlots(sb->type_ptr_bytes, b->type_ptr_bytes, "PtrBytes");
  expectSameSlots(sb->type_tflag, b->type_tflag, "TFlag");
  expectSameSlots(sb->type_kind, b->type_kind, "Kind_");
  expectSameSlots(sb->type_gcdata, b->type_gcdata, "GCData");
  EXPECT_EQ(sb->type_struct_size, b->type_struct_size);
  EXPECT_EQ(sb->inline_mark_bits_size, b->inline_mark_bits_size);
  auto gl = core::GoroutineLayout::fromDwarf(dwarf->info());
  ASSERT_TRUE(gl) << gl.error().message();
  auto sgl = core::GoroutineLayout::fromDwarf(table->info());
  ASSERT_TRUE(sgl) << sgl.error().message();
  for (auto field :
       {&core::GoroutineLayout::g_size,       &core::GoroutineLayout::goid,
        &core::GoroutineLayout::atomicstatus, &core::GoroutineLayout::waitreason,
        &core::GoroutineLayout::waitsince,    &core::GoroutineLayout::gopc,
        &core::GoroutineLayout::startpc,      &core::GoroutineLayout::stack_lo,
        &core::GoroutineLayout::stack_hi,     &core::GoroutineLayout::sched_sp,
        &core::GoroutineLayout::sched_pc,     &core::GoroutineLayout::sched_lr,
        &core::GoroutineLayout::sched_bp,     &core::GoroutineLayout::syscallsp,
        &core::GoroutineLayout::syscallpc,    &core::GoroutineLayout::m,
        &core::GoroutineLayout::m_procid,     &core::GoroutineLayout::allgs,
        &core::GoroutineLayout::wait_reasons, &core::GoroutineLayout::wait_reason_count}) {
    EXPECT_EQ((*sgl).*field, (*gl).*field);
  }

  // The readers' results.
  auto heap = core::walkHeap(mem, *l, nullSink());
  ASSERT_TRUE(heap) << heap.error().message();
  auto sheap = core::walkHeap(smem, *sl, nullSink());
  ASSERT_TRUE(sheap) << sheap.error().message();
  EXPECT_EQ(sheap->addr, heap->addr);
  EXPECT_EQ(sheap->size, heap->size);
  const core::PointerMasks masks = core::readPointerMasks(mem, *l, *b, *heap, nullSink());
  const core::PointerMasks smasks = core::readPointerMasks(smem, *sl, *sb, *sheap, nullSink());
  EXPECT_EQ(smasks.layout, masks.layout);
  EXPECT_EQ(smasks.pointer_words, masks.pointer_words);
  EXPECT_EQ(smasks.objects_with_pointers, masks.objects_with_pointers);

  auto gs = core::readGoroutines(*core, mem, *full, dwarf->info(), bias, nullSink());
  ASSERT_TRUE(gs) << gs.error().message();
  auto sgs = core::readGoroutines(*core, smem, *stripped, table->info(), bias, nullSink());
  ASSERT_TRUE(sgs) << sgs.error().message();
  EXPECT_EQ(sgs->wait_reason_names, gs->wait_reason_names);
  ASSERT_EQ(sgs->goroutines.size(), gs->goroutines.size());
  for (size_t i = 0; i < gs->goroutines.size(); ++i) {
    const core::Goroutine &g = gs->goroutines[i], &s = sgs->goroutines[i];
    EXPECT_EQ(s.goid, g.goid);
    EXPECT_EQ(sgs->statusText(s), gs->statusText(g));
    EXPECT_EQ(s.sched_pc, g.sched_pc);
    ASSERT_EQ(s.frame_count, g.frame_count) << "goroutine " << g.goid;
    for (size_t f = 0; f < g.frame_count; ++f) {
      EXPECT_EQ(sgs->framesOf(s)[f].pc, gs->framesOf(g)[f].pc);
      EXPECT_EQ(sgs->framesOf(s)[f].where.function, gs->framesOf(g)[f].where.function);
    }
  }

  auto roots = core::readDataRoots(mem, dwarf->info(), nullSink());
  ASSERT_TRUE(roots) << roots.error().message();
  auto sroots = core::readDataRoots(smem, table->info(), nullSink());
  ASSERT_TRUE(sroots) << sroots.error().message();
  ASSERT_EQ(sroots->modules.size(), roots->modules.size());
  for (size_t i = 0; i < roots->modules.size(); ++i) {
    EXPECT_EQ(sroots->modules[i].moduledata, roots->modules[i].moduledata);
    EXPECT_EQ(sroots->modules[i].data.offsets, roots->modules[i].data.offsets);
    EXPECT_EQ(sroots->modules[i].bss.offsets, roots->modules[i].bss.offsets);
    EXPECT_EQ(sroots->modules[i].bss.values, roots->modules[i].bss.values);
  }
  auto specials =
      core::readSpecials(mem, *l, dwarf->info(), full->pclntab(), full->goVersion(), nullSink());
  ASSERT_TRUE(specials) << specials.error().message();
  auto sspecials = core::readSpecials(smem, *sl, table->info(), stripped->pclntab(),
                                      stripped->goVersion(), nullSink());
  ASSERT_TRUE(sspecials) << sspecials.error().message();
  EXPECT_EQ(sspecials->obj, specials->obj);
  EXPECT_EQ(sspecials->fn_pc, specials->fn_pc);
  EXPECT_EQ(sspecials->fn_name, specials->fn_name);
  EXPECT_EQ(sspecials->sample_obj, specials->sample_obj);
  EXPECT_EQ(sspecials->sample_bucket, specials->sample_bucket);

  // The memory profile: runtime.mbuckets, found in the code, gives the
  // stripped reading the whole list, each bucket as the DWARF reading has
  // it.
  auto prof = core::readMemProfile(mem, dwarf->info(), *specials, nullSink());
  ASSERT_TRUE(prof) << prof.error().message();
  auto sprof = core::readMemProfile(smem, table->info(), *sspecials, nullSink());
  ASSERT_TRUE(sprof) << sprof.error().message();
  EXPECT_EQ(sprof->count(), prof->count());
  for (size_t i = 0; i < sprof->count(); ++i) {
    const auto it = std::find(prof->addr.begin(), prof->addr.end(), sprof->addr[i]);
    ASSERT_NE(it, prof->addr.end()) << "bucket " << sprof->addr[i];
    const size_t k = static_cast<size_t>(it - prof->addr.begin());
    EXPECT_EQ(sprof->size[i], prof->size[k]);
    EXPECT_EQ(sprof->allocs[i], prof->allocs[k]);
    EXPECT_EQ(sprof->frees[i], prof->frees[k]);
    const auto pcs = [](const core::MemProfile& p, size_t j) {
      return std::vector<uint64_t>(p.pcs.begin() + p.first_pc[j],
                                   p.pcs.begin() + p.first_pc[j] + p.pc_count[j]);
    };
    EXPECT_EQ(pcs(*sprof, i), pcs(*prof, k));
  }

  std::cout << "[ stripped ] " << GetParam() << ": " << sheap->addr.size() << " objects, "
            << smasks.pointer_words << " pointer words, " << sgs->goroutines.size()
            << " goroutines, " << sspecials->count() << " specials, " << sprof->count() << " of "
            << prof->count() << " profile buckets, as with DWARF\n";
}

INSTANTIATE_TEST_SUITE_P(Versions, StrippedCore,
                         ::testing::ValuesIn(testing::goVersionsWithReleaseTier()),
                         [](const auto& p) { return testing::testName(p.param); });

}  // namespace
}  // namespace goheap
