// Text and CSV renderings of one table. A question's text writer fills a TextTable with already
// formatted cells (formatBytes, formatCount, ...) and picks the renderer its
// flags ask for; the data is the same either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace goheap {

enum class Align : uint8_t { Left, Right };

// Which part of an over-long cell of the elastic column gives way. Function
// and package paths keep their informative end with Middle or Start.
enum class Elide : uint8_t { End, Middle, Start };

// The width tables aim for when nothing else is known.
inline constexpr size_t kDefaultTableWidth = 100;

class TextTable {
 public:
  // Returns the column's index. Titles are shown as the header row.
  size_t addColumn(std::string title, Align align = Align::Left);
  // Several columns aligned alike (the numbers of a row); returns the last
  // one's index.
  size_t addColumns(std::initializer_list<std::string_view> titles, Align align = Align::Left);
  // The one column that is cut down, with "…", when the table is wider than
  // the width asked for; it keeps at least `min_width` characters (or its
  // title's width, if larger).
  void setElastic(size_t column, Elide elide = Elide::End, size_t min_width = 16);
  // The column that row indents apply to (column 0 unless set).
  void setTreeColumn(size_t column);

  // `cells` has one string per column (missing ones are empty, extra ones
  // ignored). `indent` shifts the tree column by two spaces per level, for
  // dominator trees and paths.
  void addRow(std::vector<std::string> cells, uint32_t indent = 0);
  size_t rowCount() const { return rows_.size(); }

  // The header and rows, columns two spaces apart and as wide as their
  // widest cell, no trailing spaces, each line ending in "\n". When the table
  // would be wider than `max_width` (0: no limit) and an elastic column is
  // set, that column is narrowed and its long cells are elided. Width counts
  // UTF-8 code points, so "…" and "µs" are one column per character.
  std::string renderText(size_t max_width = kDefaultTableWidth) const;

  // RFC 4180: a header line of titles, then one line per row; a field with a
  // comma, quote, CR or LF is quoted and its quotes doubled. Indents are not
  // rendered (give tree rows a depth column if a consumer needs it). Lines
  // end in `line_end`; RFC 4180 prescribes "\r\n", Unix tools prefer "\n".
  std::string renderCsv(std::string_view line_end = "\n") const;

 private:
  struct Column {
    std::string title;
    Align align = Align::Left;
  };
  struct Row {
    std::vector<std::string> cells;
    uint32_t indent = 0;
  };

  std::vector<Column> columns_;
  std::vector<Row> rows_;
  std::optional<size_t> elastic_;
  Elide elide_ = Elide::End;
  size_t elastic_min_width_ = 16;
  size_t tree_column_ = 0;
};

// Number of code points in UTF-8 `text`: its width in a terminal for the
// scripts goheap prints (Go identifiers, paths, numbers, "…").
size_t displayWidth(std::string_view text);

// `text` cut to at most `width` code points with "…" standing for what was
// removed at the end, the middle or the start. Never splits a UTF-8 sequence.
std::string elide(std::string_view text, size_t width, Elide where = Elide::End);

}  // namespace goheap
