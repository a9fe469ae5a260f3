// The model's pointer columns against what a real dump wrote: each object's
// slots, read through its layout, are the words its field list names in the
// file, decoded here by the format's definition (docs/dump-format.md), not
// by the reader; and the layouts are exactly the distinct lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "dump/reader.h"
#include "support/go_versions.h"
#include "support/param_names.h"

namespace goheap::dump {

using namespace model;
namespace {

// A uvarint as encoding/binary writes it.
uint64_t uvarint(std::span<const uint8_t> file, uint64_t& at) {
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    const uint8_t b = file[at++];
    v |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) return v;
  }
}

// The words of the go1.4+ field list at `at`: kind 1 a pointer, kinds 2 and
// 3 an interface's two words.
std::vector<uint64_t> fieldListWords(std::span<const uint8_t> file, uint64_t at, uint32_t ptr) {
  std::vector<uint64_t> out;
  for (;;) {
    const uint64_t kind = uvarint(file, at);
    if (kind == 0) return out;
    const uint64_t off = uvarint(file, at);
    out.push_back(off);
    if (kind == 2 || kind == 3) out.push_back(off + ptr);
  }
}

std::vector<uint64_t> slotsOf(const model::HeapModel& d, uint32_t layout) {
  std::vector<uint64_t> out;
  d.forEachSlot(layout, [&](uint64_t off) { out.push_back(off); });
  return out;
}

// "fixtures/NAME" is tests/fixtures/NAME/retention.dump, "VERSION" the
// leaks program's dump of that Go release.
std::string dumpPath(const std::string& param) {
  if (param.starts_with("fixtures/")) {
    return std::string(GOHEAP_SOURCE_DIR) + "/tests/" + param + "/retention.dump";
  }
  return std::string(GOHEAP_TESTDUMPS_DIR) + "/" + param + "/leaks.dump";
}

class ModelLayouts : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelLayouts, ObjectSlotsAreTheFieldListsTheDumpWrote) {
  const std::string path = dumpPath(GetParam());
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing (make-dumps.sh makes it)";
  auto d = readDumpFile(path);
  ASSERT_TRUE(d.ok()) << d.error().message();
  ASSERT_TRUE(d->heap_dump);
  ASSERT_NE(d->heap_dump->version, FormatVersion::Go13);
  const std::span<const uint8_t> file = d->file().bytes();
  const uint32_t ptr = d->params.ptr_size;
  // A dump's objects lie in its file, region 0, each followed by its list.
  ASSERT_EQ(d->regionCount(), 1u);
  ASSERT_TRUE(d->objects.region.empty());
  ASSERT_EQ(d->objects.layout.size(), d->objects.count());
  std::map<std::vector<uint64_t>, uint32_t> layout_of;  // every distinct list seen
  uint64_t slots = 0;
  auto note = [&](const std::vector<uint64_t>& words, uint32_t layout) {
    auto [it, inserted] = layout_of.try_emplace(words, layout);
    EXPECT_EQ(it->second, layout) << "two layouts for one list";
  };
  layout_of.emplace(std::vector<uint64_t>{}, PointerLayouts::kNoPointers);
  for (size_t i = 0; i < d->objects.count(); i++) {
    const uint64_t offset = d->objects.offset[i];
    const uint64_t size = d->objects.size[i];
    ASSERT_EQ(d->objectBytes(i).data(), file.data() + offset);
    ASSERT_EQ(d->objectBytes(i).size(), size);
    const std::vector<uint64_t> want = fieldListWords(file, offset + size, ptr);
    std::vector<uint64_t> got;
    d->forEachObjectSlot(i, [&](uint64_t off) { got.push_back(off); });
    ASSERT_EQ(got, want) << "object " << i << " at 0x" << std::hex << d->objects.addr[i];
    EXPECT_EQ(d->objectHasPointers(i), !want.empty());
    note(want, d->objects.layout[i]);
    slots += want.size();
  }
  EXPECT_EQ(d->total_field_entries, slots);
  // Frames and segments have layouts of the same table.
  for (const StackFrame& f : d->frames) note(slotsOf(*d, f.layout), f.layout);
  for (const Segment* s : {&d->data, &d->bss}) {
    if (s->present) note(slotsOf(*d, s->layout), s->layout);
  }
  // Each distinct list is stored once, and nothing else is.
  EXPECT_EQ(d->layouts.count(), layout_of.size());
  for (uint32_t k = 0; k < d->layouts.count(); k++) {
    EXPECT_EQ(layout_of.at(slotsOf(*d, k)), k) << "layout " << k;
  }
  // Far fewer layouts than objects: objects of one type share theirs.
  EXPECT_LT(d->layouts.count() * 10, d->objects.count());
}

std::vector<std::string> dumps() {
  std::vector<std::string> out;
  for (const std::string& f : goheap::testing::fixtureNames()) out.push_back("fixtures/" + f);
  for (const std::string& v : goheap::testing::goVersions()) out.push_back(v);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Dumps, ModelLayouts, ::testing::ValuesIn(dumps()),
                         goheap::testing::pathParamName);

// The leaks program keeps slices of thousands of pointers: their layouts are
// stored as one element repeated, not slot by slot.
TEST(ModelLayouts, LongSlicesOfPointersCostOneElement) {
  for (const std::string& v : goheap::testing::goVersions()) {
    SCOPED_TRACE(v);
    auto d = readDumpFile(dumpPath(v));
    ASSERT_TRUE(d.ok()) << d.error().message();
    const PointerLayouts& l = d->layouts;
    // The objects' layouts (the data and bss segments' are long lists of
    // globals, stored slot by slot).
    std::vector<bool> used(l.count(), false);
    for (uint32_t k : d->objects.layout.values()) used[k] = true;
    uint64_t longest = 0, stored = 0, all = 0;
    for (uint32_t k = 0; k < l.count(); k++) {
      if (!used[k]) continue;
      longest = std::max(longest, l.slotCount(k));
      stored += l.pattern(k).size();
      all += l.slotCount(k);
    }
    EXPECT_GE(longest, 10000u);
    EXPECT_LT(stored * 4, all);
  }
}

}  // namespace
}  // namespace goheap::dump
