#include "cli/output_width.h"
#include "util/text_table.h"

#include <gtest/gtest.h>

#include <string>

namespace goheap::cli {
namespace {

TextTable typesTable() {
  TextTable t;
  t.addColumn("type");
  t.addColumn("count", Align::Right);
  t.addColumn("bytes", Align::Right);
  t.addRow({"[]uint8", "1,204", "12.3 MiB"});
  t.addRow({"*net/http.conn", "12", "96 KiB"});
  t.addRow({"string", "7", "112 B"});
  return t;
}

TEST(TextTable, ColumnsFitTheirWidestCellAndAlign) {
  EXPECT_EQ(typesTable().renderText(),
            "type            count     bytes\n"
            "[]uint8         1,204  12.3 MiB\n"
            "*net/http.conn     12    96 KiB\n"
            "string              7     112 B\n");
}

TEST(TextTable, NoTrailingSpacesWhenTheLastColumnIsLeftAligned) {
  TextTable t;
  t.addColumn("bytes", Align::Right);
  t.addColumn("name");
  t.addRow({"1 KiB", "a"});
  t.addRow({"12 MiB", "longer name"});
  EXPECT_EQ(t.renderText(),
            " bytes  name\n"
            " 1 KiB  a\n"
            "12 MiB  longer name\n");
}

TEST(TextTable, MissingCellsAreEmpty) {
  TextTable t;
  t.addColumn("a");
  t.addColumn("b", Align::Right);
  t.addRow({"x"});
  EXPECT_EQ(t.renderText(), "a  b\nx\n");
}

TextTable siteTable() {
  TextTable t;
  t.addColumn("bytes", Align::Right);
  size_t site = t.addColumn("site");
  t.addColumn("n", Align::Right);
  t.setElastic(site, Elide::End, 8);
  t.addRow({"1 MiB", "github.com/example/server/internal/cache.(*Store).Put", "3"});
  t.addRow({"2 KiB", "main.main", "1"});
  return t;
}

TEST(TextTable, ElasticColumnIsElidedToFitTheWidth) {
  std::string text = siteTable().renderText(40);
  EXPECT_EQ(text,
            "bytes  site                            n\n"
            "1 MiB  github.com/example/server/int…  3\n"
            "2 KiB  main.main                       1\n");
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    EXPECT_LE(displayWidth(text.substr(start, end - start)), 40u);
    start = end + 1;
  }
}

TEST(TextTable, ElisionAtTheStartOrMiddleKeepsTheInformativeEnd) {
  TextTable t = siteTable();
  t.setElastic(1, Elide::Start, 8);
  EXPECT_NE(t.renderText(40).find("1 MiB  …r/internal/cache.(*Store).Put  3\n"), std::string::npos)
      << t.renderText(40);
  t.setElastic(1, Elide::Middle, 8);
  EXPECT_NE(t.renderText(40).find("1 MiB  github.com/exam…e.(*Store).Put  3\n"), std::string::npos)
      << t.renderText(40);
}

TEST(TextTable, ElasticColumnKeepsItsMinimumWidth) {
  std::string text = siteTable().renderText(10);
  EXPECT_NE(text.find("1 MiB  github.…  3\n"), std::string::npos) << text;
}

TEST(TextTable, ZeroWidthMeansNoLimit) {
  std::string text = siteTable().renderText(0);
  EXPECT_NE(text.find("github.com/example/server/internal/cache.(*Store).Put  3\n"),
            std::string::npos);
}

TEST(TextTable, WideTableWithoutElasticColumnIsNotCut) {
  TextTable t;
  t.addColumn("a");
  t.addRow({std::string(150, 'x')});
  EXPECT_EQ(t.renderText(), "a\n" + std::string(150, 'x') + "\n");
}

TEST(TextTable, IndentShiftsTheTreeColumn) {
  TextTable t;
  t.addColumn("retained", Align::Right);
  size_t name = t.addColumn("object");
  t.setTreeColumn(name);
  t.addRow({"10 MiB", "root"}, 0);
  t.addRow({"8 MiB", "*cache.Store"}, 1);
  t.addRow({"6 MiB", "map[string]*entry"}, 2);
  EXPECT_EQ(t.renderText(),
            "retained  object\n"
            "  10 MiB  root\n"
            "   8 MiB    *cache.Store\n"
            "   6 MiB      map[string]*entry\n");
}

TEST(TextTable, IndentedElasticTreeColumnIsElidedAfterItsIndent) {
  TextTable t;
  size_t name = t.addColumn("object");
  t.setTreeColumn(name);
  t.setElastic(name, Elide::End, 4);
  t.addRow({"abcdefghijklmnop"}, 2);
  EXPECT_EQ(t.renderText(12),
            "object\n"
            "    abcdefg…\n");
}

TEST(TextTable, WidthCountsCharactersNotBytes) {
  TextTable t;
  t.addColumn("phase");
  t.addColumn("time", Align::Right);
  t.addRow({"read", "850 µs"});
  t.addRow({"dominators", "1.2 s"});
  EXPECT_EQ(t.renderText(),
            "phase         time\n"
            "read        850 µs\n"
            "dominators   1.2 s\n");
}

TEST(TextTable, ControlCharactersAreShownEscaped) {
  TextTable t;
  t.addColumn("string");
  t.addColumn("n", Align::Right);
  t.addRow({"a\nb\x1b[31m", "1"});
  EXPECT_EQ(t.renderText(),
            "string        n\n"
            "a\\nb\\x1b[31m  1\n");
}

TEST(Elide, NeverSplitsACharacter) {
  EXPECT_EQ(elide("µµµµµ", 3), "µµ…");
  EXPECT_EQ(elide("µµµµµ", 3, Elide::Start), "…µµ");
  EXPECT_EQ(elide("abcdef", 4, Elide::Middle), "ab…f");
  EXPECT_EQ(elide("abc", 3), "abc");
  EXPECT_EQ(elide("abc", 1), "…");
  EXPECT_EQ(elide("abc", 0), "");
}

TEST(TableCsv, QuotesOnlyWhatNeedsQuoting) {
  TextTable t;
  t.addColumn("type");
  t.addColumn("bytes", Align::Right);
  t.addRow({"map[string]int", "12"});
  t.addRow({"struct { a, b int }", "16"});
  t.addRow({"say \"hi\"", "8"});
  t.addRow({"two\nlines", "1"});
  t.addRow({"", "0"}, 3);  // indents are not part of CSV
  EXPECT_EQ(t.renderCsv(),
            "type,bytes\n"
            "map[string]int,12\n"
            "\"struct { a, b int }\",16\n"
            "\"say \"\"hi\"\"\",8\n"
            "\"two\nlines\",1\n"
            ",0\n");
}

TEST(TableCsv, Rfc4180LineEndsOnRequest) {
  TextTable t;
  t.addColumn("a");
  t.addColumn("b");
  t.addRow({"1", "x\r"});
  EXPECT_EQ(t.renderCsv("\r\n"), "a,b\r\n1,\"x\r\"\r\n");
}

TEST(OutputWidth, PipesGetTheDefault) {
  EXPECT_EQ(outputWidth(false, "200", 150), kDefaultTableWidth);
}

TEST(OutputWidth, TerminalsPreferColumnsThenTheirOwnWidth) {
  EXPECT_EQ(outputWidth(true, "132", 80), 132u);
  EXPECT_EQ(outputWidth(true, nullptr, 80), 80u);
  EXPECT_EQ(outputWidth(true, "junk", 90), 90u);
  EXPECT_EQ(outputWidth(true, "5", 90), 90u);  // implausible
  EXPECT_EQ(outputWidth(true, nullptr, std::nullopt), kDefaultTableWidth);
}

}  // namespace
}  // namespace goheap::cli
