#include "cli/output_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

#include "util/format.h"
#include "util/text_table.h"

namespace goheap::cli {

size_t outputWidth(bool stdout_is_tty, const char* columns_env, std::optional<size_t> tty_columns) {
  if (!stdout_is_tty) return kDefaultTableWidth;
  if (columns_env != nullptr) {
    // A shell sets $COLUMNS to the terminal's width, and a user may set it to
    // ask for another; anything implausible is ignored.
    Expected<uint64_t> n = parseUint(columns_env);
    if (n.ok() && *n >= 20 && *n <= 10000) return static_cast<size_t>(*n);
  }
  if (tty_columns.has_value() && *tty_columns >= 20) return *tty_columns;
  return kDefaultTableWidth;
}

size_t outputWidth() {
  bool tty = ::isatty(STDOUT_FILENO) == 1;
  std::optional<size_t> columns;
  if (tty) {
    winsize ws{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) columns = ws.ws_col;
  }
  return outputWidth(tty, std::getenv("COLUMNS"), columns);
}

}  // namespace goheap::cli
