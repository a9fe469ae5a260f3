// How wide the text a command prints may be: the terminal's width, or a
// fixed one for a pipe or a file.
#pragma once

#include <cstddef>
#include <optional>

namespace goheap::cli {

// The width text tables should fit: when stdout is a terminal, $COLUMNS if it
// holds a sensible number, else the terminal's own width; otherwise (a pipe, a
// file) kDefaultTableWidth.
size_t outputWidth();
// The same decision from its inputs, for tests: `tty_columns` is the
// terminal's width if stdout is a terminal and it is known.
size_t outputWidth(bool stdout_is_tty, const char* columns_env, std::optional<size_t> tty_columns);

}  // namespace goheap::cli
