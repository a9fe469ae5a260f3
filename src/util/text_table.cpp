#include "util/text_table.h"

#include <algorithm>
#include <cstdlib>

#include "util/format.h"

namespace goheap {
namespace {

constexpr std::string_view kEllipsis = "…";
constexpr size_t kColumnGap = 2;
constexpr size_t kIndentStep = 2;

bool isContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Byte length of the first `n` code points of `text`.
size_t prefixBytes(std::string_view text, size_t n) {
  size_t i = 0;
  while (i < text.size() && n > 0) {
    ++i;
    while (i < text.size() && isContinuation(text[i])) ++i;
    --n;
  }
  return i;
}

// Byte offset where the last `n` code points of `text` begin.
size_t suffixStart(std::string_view text, size_t n) {
  size_t i = text.size();
  while (i > 0 && n > 0) {
    --i;
    while (i > 0 && isContinuation(text[i])) --i;
    --n;
  }
  return i;
}

// A Go string may hold a newline or an escape sequence; printed raw it would
// break the table or the terminal, so control characters are shown escaped.
std::string printable(std::string_view text) {
  bool clean = std::none_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (clean) return std::string(text);
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string s;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      s += "\\n";
    } else if (c == '\t') {
      s += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      s += "\\x";
      s += kHex[u >> 4];
      s += kHex[u & 0xf];
    } else {
      s += c;
    }
  }
  return s;
}

void pad(std::string& out, size_t n) {
  out.append(n, ' ');
}

}  // namespace

size_t displayWidth(std::string_view text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !isContinuation(c); }));
}

std::string elide(std::string_view text, size_t width, Elide where) {
  if (displayWidth(text) <= width) return std::string(text);
  if (width == 0) return {};
  const size_t keep = width - 1;  // one column goes to the ellipsis
  std::string s;
  switch (where) {
    case Elide::End:
      s = text.substr(0, prefixBytes(text, keep));
      s += kEllipsis;
      break;
    case Elide::Start:
      s = kEllipsis;
      s += text.substr(suffixStart(text, keep));
      break;
    case Elide::Middle: {
      size_t head = (keep + 1) / 2;
      size_t tail = keep - head;
      s = text.substr(0, prefixBytes(text, head));
      s += kEllipsis;
      if (tail > 0) s += text.substr(suffixStart(text, tail));
      break;
    }
  }
  return s;
}

size_t TextTable::addColumn(std::string title, Align align) {
  columns_.push_back(Column{std::move(title), align});
  return columns_.size() - 1;
}

size_t TextTable::addColumns(std::initializer_list<std::string_view> titles, Align align) {
  size_t last = columns_.size();
  for (std::string_view title : titles) last = addColumn(std::string(title), align);
  return last;
}

void TextTable::setElastic(size_t column, Elide elide_where, size_t min_width) {
  elastic_ = column;
  elide_ = elide_where;
  elastic_min_width_ = min_width;
}

void TextTable::setTreeColumn(size_t column) {
  tree_column_ = column;
}

void TextTable::addRow(std::vector<std::string> cells, uint32_t indent) {
  cells.resize(columns_.size());
  rows_.push_back(Row{std::move(cells), indent});
}

std::string TextTable::renderText(size_t max_width) const {
  const size_t n = columns_.size();
  if (n == 0) return {};

  // Cells as they will be printed, before any eliding: control characters
  // escaped, the tree column with its indent.
  std::vector<std::vector<std::string>> text(rows_.size());
  std::vector<size_t> widths(n, 0);
  for (size_t c = 0; c < n; ++c) widths[c] = displayWidth(columns_[c].title);
  for (size_t r = 0; r < rows_.size(); ++r) {
    text[r].reserve(n);
    for (size_t c = 0; c < n; ++c) {
      std::string cell = printable(rows_[r].cells[c]);
      size_t w = displayWidth(cell);
      if (c == tree_column_) w += kIndentStep * rows_[r].indent;
      widths[c] = std::max(widths[c], w);
      text[r].push_back(std::move(cell));
    }
  }

  size_t total = kColumnGap * (n - 1);
  for (size_t w : widths) total += w;
  if (max_width != 0 && total > max_width && elastic_.has_value() && *elastic_ < n) {
    size_t e = *elastic_;
    size_t others = total - widths[e];
    size_t room = max_width > others ? max_width - others : 0;
    size_t floor =
        std::min(widths[e], std::max(elastic_min_width_, displayWidth(columns_[e].title)));
    widths[e] = std::max(room, floor);
  }

  std::string out;
  auto emit = [&](std::string_view cell, size_t c, size_t indent_levels) {
    size_t width = widths[c];
    size_t indent = c == tree_column_ ? kIndentStep * indent_levels : 0;
    // Deep trees must not push the cell out of its column entirely; keep at
    // least half of it for text.
    indent = std::min(indent, width / 2);
    std::string shown = elide(cell, width - indent, elide_);
    size_t used = indent + displayWidth(shown);
    if (c > 0) pad(out, kColumnGap);
    if (columns_[c].align == Align::Right) pad(out, width - used);
    pad(out, indent);
    out += shown;
    if (columns_[c].align == Align::Left) pad(out, width - used);
  };
  auto endLine = [&] {
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  };

  for (size_t c = 0; c < n; ++c) emit(printable(columns_[c].title), c, 0);
  endLine();
  for (size_t r = 0; r < rows_.size(); ++r) {
    for (size_t c = 0; c < n; ++c) emit(text[r][c], c, rows_[r].indent);
    endLine();
  }
  return out;
}

std::string TextTable::renderCsv(std::string_view line_end) const {
  std::string out;
  auto field = [&](std::string_view value) {
    if (value.find_first_of(",\"\r\n") == std::string_view::npos) {
      out += value;
      return;
    }
    out += '"';
    for (char c : value) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  };
  auto line = [&](auto&& cell_at) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (c > 0) out += ',';
      field(cell_at(c));
    }
    out += line_end;
  };
  line([&](size_t c) -> std::string_view { return columns_[c].title; });
  for (const Row& row : rows_) line([&](size_t c) -> std::string_view { return row.cells[c]; });
  return out;
}

}  // namespace goheap
