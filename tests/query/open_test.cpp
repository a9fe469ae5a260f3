// query::open given something that is not a heap dump, and what a Source is.
#include "query/open.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>
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
  source.heap = query::HeapBytes{core};
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
  source.heap = query::HeapBytes{exe};
  auto opened = query::open(source, quiet, {});
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message().find("at byte offset 0"), std::string::npos)
      << opened.error().message();
}

// What a user types for a heap: a URL of either scheme (https is refused
// with its reason when opened), else a file, as the commands take HEAP.
TEST(QuerySource, AnArgumentIsAUrlOrAFile) {
  const query::Source url =
      query::Source::fromArgument("http://127.0.0.1:6060/debug/heapdump", "./server", "OLD");
  ASSERT_TRUE(std::holds_alternative<query::HeapUrl>(url.heap));
  EXPECT_EQ(std::get<query::HeapUrl>(url.heap).url, "http://127.0.0.1:6060/debug/heapdump");
  EXPECT_EQ(url.exe_path, "./server");
  EXPECT_EQ(url.label, "OLD");
  EXPECT_TRUE(std::holds_alternative<query::HeapUrl>(
      query::Source::fromArgument("https://example.invalid/heap").heap));
  const query::Source file = query::Source::fromArgument("heap.dump");
  ASSERT_TRUE(std::holds_alternative<query::HeapFile>(file.heap));
  EXPECT_EQ(std::get<query::HeapFile>(file.heap).path, "heap.dump");
  EXPECT_TRUE(file.exe_path.empty() && file.label.empty());
  // A file named like a scheme without its slashes is a file.
  EXPECT_TRUE(
      std::holds_alternative<query::HeapFile>(query::Source::fromArgument("http:heap.dump").heap));
}

TEST(QuerySource, DescribeNamesEachKindOfHeap) {
  EXPECT_EQ(query::Source::fromArgument("/tmp/heap.dump").describe(), "/tmp/heap.dump");
  EXPECT_EQ(query::Source::fromArgument("http://h:1/d").describe(), "http://h:1/d");
  query::Source process;
  process.heap = query::LiveProcess{4242};
  EXPECT_EQ(process.describe(), "process 4242");
  query::Source bytes;
  bytes.heap = query::HeapBytes{};
  EXPECT_EQ(bytes.describe(), "<memory>");
}

}  // namespace
}  // namespace goheap
