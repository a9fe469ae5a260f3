// query::open given something that is not a heap dump.
#include "query/open.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/core_builder.h"

namespace goheap {
namespace {

// A core is read as a core; without an executable to go with it (none is
// named and the core names none) the user is asked for one: exit status 2.
TEST(QueryOpen, ACoreWithoutItsExecutableAsksForIt) {
  testsupport::CoreBuilder b;
  b.segment(0x10000, std::vector<uint8_t>(64, 0));
  const std::vector<uint8_t> core = b.build();
  NullSink quiet;
  query::Source source;
  source.dump_bytes = core;
  auto opened = query::open(source, quiet, {});
  ASSERT_FALSE(opened);
  EXPECT_TRUE(opened.error().needsInput()) << opened.error().message();
  EXPECT_NE(opened.error().message().find("no executable belongs to"), std::string::npos)
      << opened.error().message();
  EXPECT_NE(opened.error().message().find("give the executable after the core"), std::string::npos)
      << opened.error().message();
}

TEST(QueryOpen, OtherFilesKeepTheReadersOffset) {
  // An ELF file that is not a core (e_type ET_EXEC) is just not a dump.
  testsupport::CoreBuilder b;
  b.type(2);
  const std::vector<uint8_t> exe = b.build();
  NullSink quiet;
  query::Source source;
  source.dump_bytes = exe;
  auto opened = query::open(source, quiet, {});
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message().find("at byte offset 0"), std::string::npos)
      << opened.error().message();
}

}  // namespace
}  // namespace goheap
