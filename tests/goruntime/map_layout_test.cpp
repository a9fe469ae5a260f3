// goruntime's map layouts against two independent oracles: the version
// decisions against Go's own sources (cited per test), and every layout
// fact (struct sizes, field offsets, the map type descriptor's tail, the
// names of bucket and group types and their fields) against the DWARF the
// real toolchains wrote into the zoo test program of every release, linked
// for 64-bit little- and big-endian and 32-bit targets, and built with
// GOEXPERIMENT=mapsplitgroup.
#include "goruntime/map_layout.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "bin/binary.h"
#include "support/go_versions.h"

namespace goheap::goruntime {
namespace {

namespace fs = std::filesystem;

TEST(MapLayout, TheImplementationFollowsTheReleaseAndItsExperiments) {
  // runtime/map.go until Go 1.23; internal/runtime/maps since Go 1.24, with
  // the old maps behind GOEXPERIMENT=noswissmap through Go 1.25
  // (internal/abi/map_noswiss.go); split groups behind
  // GOEXPERIMENT=mapsplitgroup in Go 1.27 (internal/abi/map.go).
  EXPECT_EQ(mapImplementation(parseGoVersion("go1.19.8")), MapImplementation::Buckets);
  EXPECT_EQ(mapImplementation(parseGoVersion("go1.23.1")), MapImplementation::Buckets);
  EXPECT_EQ(mapImplementation(parseGoVersion("go1.24.4")), MapImplementation::SwissTables);
  EXPECT_EQ(mapImplementation(parseGoVersion("go1.24.4 X:noswissmap")), MapImplementation::Buckets);
  EXPECT_EQ(mapImplementation(parseGoVersion("go1.27.4-X:nogreenteagc")),
            MapImplementation::SwissTables);
  EXPECT_EQ(mapImplementation(parseGoVersion("go1.27.4-X:nogreenteagc,mapsplitgroup")),
            MapImplementation::SplitGroups);
}

TEST(MapLayout, EightSlotsPerBucketAndGroup) {
  // runtime/map.go: bucketCnt = 1 << bucketCntBits, bucketCntBits = 3;
  // internal/abi/map.go: MapGroupSlots = 1 << MapGroupSlotsBits // 8.
  EXPECT_EQ(kMapSlotsPerGroup, 8u);
}

TEST(MapLayout, TheCompilerNamesBucketsAndGroups) {
  EXPECT_EQ(compilerGroupName(MapImplementation::Buckets, "string", "int"),
            "noalg.map.bucket[string]int");
  EXPECT_EQ(compilerGroupName(MapImplementation::SplitGroups, "int", "*main.T"),
            "noalg.map.group[int]*main.T");
  EXPECT_TRUE(isMapGroupName("noalg.map.group[int]string"));
  EXPECT_TRUE(isMapGroupName("bucket<string,int>"));
  EXPECT_FALSE(isMapGroupName("main.group"));
  EXPECT_EQ(mapImplementationOfHeader("hash<string,int>"), MapImplementation::Buckets);
  EXPECT_EQ(mapImplementationOfHeader("internal/runtime/maps.Map"), MapImplementation::SwissTables);
  EXPECT_FALSE(mapImplementationOfHeader("main.Map").has_value());
}

std::vector<testing::ProgramBuild> zooBuilds() {
  std::vector<testing::ProgramBuild> out = testing::programBuilds("zoo", testing::everyGoVersion());
  out.push_back({"go1_27_mapsplitgroup_amd64",
                 std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.27/mapsplitgroup/zoo", "go1.27",
                 "amd64"});
  return out;
}

class MapLayoutAgainstDwarf : public ::testing::TestWithParam<testing::ProgramBuild> {
 protected:
  void SetUp() override {
    const std::string& path = GetParam().exe;
    ASSERT_TRUE(fs::exists(path)) << path << " is missing (make-dumps.sh builds it)";
    Expected<bin::Binary> b = bin::Binary::open(path);
    ASSERT_TRUE(b.ok()) << b.error().message();
    binary_ = std::make_unique<bin::Binary>(b.take());
    dwarf_ = binary_->debugInfo();
    ASSERT_NE(dwarf_, nullptr) << binary_->debugInfoProblem();
    version_ = parseGoVersion(binary_->goVersion());
    ptr_size_ = binary_->container().ptr_size;
  }

  // The runtime's own struct `name` has the size and the fields `want` says
  // (it may have more: maps.Map's tombstonePossible and clearSeq, which no
  // reader needs).
  void expectStruct(std::string_view name, const MapStruct& want) const {
    const bin::TypeId t = dwarf_->typeByName(name);
    ASSERT_NE(t, bin::kNoType) << name;
    EXPECT_EQ(dwarf_->type(t).size, want.size) << name;
    for (const MapField& f : want.fields) {
      const bin::Field* got = dwarf_->fieldNamed(t, f.name);
      ASSERT_NE(got, nullptr) << name << "." << f.name;
      EXPECT_EQ(got->offset, f.offset) << name << "." << f.name;
    }
  }

  // The first DWARF type whose name starts with `prefix`.
  bin::TypeId firstNamed(std::string_view prefix) const {
    for (size_t i = 0; i < dwarf_->types().size(); i++) {
      if (dwarf_->types()[i].name.starts_with(prefix)) return static_cast<bin::TypeId>(i);
    }
    return bin::kNoType;
  }

  std::unique_ptr<bin::Binary> binary_;
  const bin::DebugInfo* dwarf_ = nullptr;
  GoVersion version_;
  uint32_t ptr_size_ = 8;
};

TEST_P(MapLayoutAgainstDwarf, TheRuntimesMapStructsHaveTheirOffsets) {
  const MapImplementation impl = mapImplementation(version_);
  const MapLayout layout = mapLayout(impl);
  const MapStructs structs = mapStructs(impl, ptr_size_);
  expectStruct(layout.runtime_header, structs.header);
  if (impl == MapImplementation::Buckets) return;
  expectStruct("internal/runtime/maps.table", structs.table);
  expectStruct("internal/runtime/maps.groupsReference", structs.group_reference);
}

TEST_P(MapLayoutAgainstDwarf, TheLinkersInstantiationsHaveTheFieldNames) {
  const MapImplementation impl = mapImplementation(version_);
  const MapLayout layout = mapLayout(impl);
  const bin::TypeId header = firstNamed(layout.header_prefix);
  ASSERT_NE(header, bin::kNoType) << layout.header_prefix;
  for (const MapField& f : mapStructs(impl, ptr_size_).header.fields) {
    EXPECT_NE(dwarf_->fieldNamed(header, f.name), nullptr) << f.name;
  }
  for (std::string_view name :
       {layout.fields.length, layout.fields.log2_buckets, layout.fields.buckets,
        layout.fields.old_buckets, layout.fields.directory, layout.fields.directory_length}) {
    if (!name.empty()) {
      EXPECT_NE(dwarf_->fieldNamed(header, name), nullptr) << name;
    }
  }
  if (impl != MapImplementation::Buckets) {
    const bin::TypeId table = firstNamed(layout.table_prefix);
    ASSERT_NE(table, bin::kNoType) << layout.table_prefix;
    EXPECT_NE(dwarf_->fieldNamed(table, layout.fields.table_capacity), nullptr);
    const bin::Field* groups = dwarf_->fieldNamed(table, layout.fields.table_groups);
    ASSERT_NE(groups, nullptr);
    EXPECT_NE(dwarf_->fieldNamed(groups->type, layout.fields.groups_data), nullptr);
    EXPECT_NE(dwarf_->fieldNamed(groups->type, layout.fields.groups_length_mask), nullptr);
  }
  // The bucket or group the header points at: keys and values apart, or
  // slots of both, as the release lays them out.
  std::string group_prefix = std::string(layout.dwarf_group_prefix);
  if (impl != MapImplementation::Buckets) group_prefix = "noalg." + group_prefix;
  const bin::TypeId group = firstNamed(group_prefix);
  ASSERT_NE(group, bin::kNoType) << group_prefix;
  if (layout.fields.slots.empty()) {
    EXPECT_NE(dwarf_->fieldNamed(group, layout.fields.keys), nullptr);
    EXPECT_NE(dwarf_->fieldNamed(group, layout.fields.values), nullptr);
    EXPECT_EQ(dwarf_->fieldNamed(group, "slots"), nullptr);
  } else {
    const bin::Field* slots = dwarf_->fieldNamed(group, layout.fields.slots);
    ASSERT_NE(slots, nullptr);
    const bin::TypeId slot = dwarf_->type(dwarf_->resolve(slots->type)).elem;
    EXPECT_NE(dwarf_->fieldNamed(slot, layout.fields.slot_key), nullptr);
    EXPECT_NE(dwarf_->fieldNamed(slot, layout.fields.slot_elem), nullptr);
  }
}

TEST_P(MapLayoutAgainstDwarf, TheMapTypeDescriptorHasItsTail) {
  // The map type descriptor's Go declaration, by release: runtime.maptype
  // (Go 1.19-1.20), internal/abi.MapType (1.21-1.23, and 1.26+),
  // internal/abi.SwissMapType (1.24-1.25).
  const MapImplementation impl = mapImplementation(version_);
  bin::TypeId t = bin::kNoType;
  for (std::string_view name :
       {"internal/abi.SwissMapType", "internal/abi.MapType", "runtime.maptype"}) {
    t = dwarf_->typeByName(name);
    if (t != bin::kNoType) break;
  }
  ASSERT_NE(t, bin::kNoType);
  const MapDescriptorLayout want = mapDescriptorLayout(impl, version_, ptr_size_);
  const uint64_t header = 4 * ptr_size_ + 16;  // abi.Type
  EXPECT_EQ(dwarf_->type(t).size, header + want.tail_size);
  auto offset = [&](std::initializer_list<std::string_view> names) -> uint64_t {
    for (std::string_view n : names) {
      if (const bin::Field* f = dwarf_->fieldNamed(t, n)) return f->offset - header;
    }
    ADD_FAILURE() << "no field " << *names.begin();
    return 0;
  };
  EXPECT_EQ(offset({"Key", "key"}), want.key);
  EXPECT_EQ(offset({"Elem", "elem"}), want.elem);
  EXPECT_EQ(offset({"Group", "Bucket", "bucket"}), want.group);
}

INSTANTIATE_TEST_SUITE_P(Zoo, MapLayoutAgainstDwarf, ::testing::ValuesIn(zooBuilds()),
                         testing::programBuildName);

}  // namespace
}  // namespace goheap::goruntime
