// The runtime's type descriptors against the DWARF of the same executable:
// for every DWARF type with a DW_AT_go_runtime_type, the type read from the
// descriptor at that offset must have the same name, size and kind, and the
// same fields (names, offsets, and the names of their types). The zoo
// program of every release, linked every way, and cross-built for a
// big-endian and a 32-bit target.
#include "bin/type_descriptors.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "bin/binary.h"
#include "bin/inline.h"
#include "support/go_versions.h"

namespace goheap {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> zooExecutables() {
  std::vector<std::string> out;
  for (const std::string& v : testing::everyGoVersion()) {
    out.push_back(v + "/zoo");
    if (std::find(testing::goVersions().begin(), testing::goVersions().end(), v) !=
        testing::goVersions().end()) {
      out.push_back(v + "/cross/zoo-s390x");
      out.push_back(v + "/cross/zoo-arm");
    }
  }
  for (const std::string v : {"go1.24", "go1.26", "go1.27"}) {
    for (const std::string m : {"pie", "external", "external-pie"})
      out.push_back(v + "/" + m + "/zoo");
  }
  out.push_back("go1.27/mapsplitgroup/zoo");
  return out;
}

std::string pathName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (c == '.' || c == '-' || c == '/') c = '_';
  }
  return name;
}

// DWARF names a type declared inside a function "pkg.T·N"; its descriptor,
// as %T, "pkg.T".
std::string withoutLocalSuffix(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); i++) {
    if (name.compare(i, 2, "\u00b7") == 0) {
      i += 2;
      while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) != 0) i++;
      i--;
      continue;
    }
    out += name[i];
  }
  return out;
}

class DescriptorsAgainstDwarf : public ::testing::TestWithParam<std::string> {};

std::string fieldsText(const bin::DebugInfo& d, bin::TypeId t) {
  const bin::TypeId r = d.resolve(t);
  if (r == bin::kNoType) return "";
  std::string s;
  for (const bin::Field& f : d.fields(d.type(r))) {
    const bin::TypeId ft = f.type;
    std::string type_name = ft == bin::kNoType ? "?" : std::string(d.type(ft).name);
    s += std::string(f.name) + "@" + std::to_string(f.offset) + ":" + type_name +
         (f.embedded ? "(embedded)" : "") + "; ";
  }
  return s;
}

TEST_P(DescriptorsAgainstDwarf, EveryDwarfTypeWithARuntimeTypeMatchesItsDescriptor) {
  const std::string path = std::string(GOHEAP_TESTDUMPS_DIR) + "/" + GetParam();
  ASSERT_TRUE(fs::exists(path)) << path << " is missing (make-dumps.sh builds it)";
  Expected<bin::Binary> b = bin::Binary::open(path);
  ASSERT_TRUE(b.ok()) << b.error().message();
  const bin::DebugInfo* dwarf = b->debugInfo();
  ASSERT_NE(dwarf, nullptr) << b->debugInfoProblem();
  ASSERT_TRUE(b->moduleLayout().has_value());
  bin::DescriptorCounts counts;
  Expected<bin::DebugInfo> desc = bin::readTypeDescriptors(
      b->container(), *b->moduleLayout(), parseGoVersion(b->goVersion()), {}, &counts);
  ASSERT_TRUE(desc.ok()) << desc.error().message();

  size_t compared = 0, missing = 0, wrong = 0;
  for (const bin::Type& t : dwarf->types()) {
    if (t.runtime_type == 0 || t.runtime_type >= b->moduleLayout()->types) continue;
    const bin::TypeId d = desc->typeByRuntimeAddress(t.runtime_type);
    if (d == bin::kNoType) {
      missing++;
      continue;
    }
    compared++;
    const bin::Type& dt = desc->type(d);
    const std::string want_fields = withoutLocalSuffix(
        fieldsText(*dwarf, static_cast<bin::TypeId>(&t - dwarf->types().data())));
    const std::string got_fields = fieldsText(*desc, d);
    const bool same =
        withoutLocalSuffix(t.name) == dt.name &&
        (t.kind == dt.kind || t.kind == bin::GoKind::Invalid) &&
        (t.size == dt.size || t.tag == bin::DwarfTag::Pointer || t.tag == bin::DwarfTag::Typedef) &&
        (t.kind != bin::GoKind::Struct || want_fields == got_fields);
    if (!same) {
      if (wrong++ < 15) {
        ADD_FAILURE() << "DWARF " << t.name << " (kind " << int(t.kind) << ", size " << t.size
                      << ") {" << want_fields << "}\n descriptor " << dt.name << " (kind "
                      << int(dt.kind) << ", size " << dt.size << ") {" << got_fields << "}";
      }
    }
  }
  EXPECT_GT(compared, 500u);
  EXPECT_EQ(wrong, 0u) << wrong << " of " << compared << " types differ";
  RecordProperty("descriptors", std::to_string(counts.descriptors));
  std::cerr << GetParam() << ": " << compared << " compared, " << missing
            << " DWARF types with no descriptor read, " << counts.descriptors << " descriptors, "
            << counts.bad << " bad\n";
}

INSTANTIATE_TEST_SUITE_P(Zoo, DescriptorsAgainstDwarf, ::testing::ValuesIn(zooExecutables()),
                         pathName);

}  // namespace
}  // namespace goheap
