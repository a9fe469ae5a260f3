// goheap: what is using the memory of a Go program, and why is it still alive?
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"
#include "cli/command.h"
#include "util/large_vector.h"
#include "util/output_file.h"
#include "util/version.h"

namespace {

void printUsage(std::FILE* out) {
  std::fprintf(out,
               "goheap %.*s: reads the heap of a Go program and shows what holds its memory:\n"
               "histograms, the dominator tree and retained sizes, paths from GC roots,\n"
               "goroutines, leak suspects, what grew between two heaps, duplicates and waste,\n"
               "and SQL over all of it.\n\n"
               "usage: goheap COMMAND HEAP [EXE] [flags]   (goheap bin EXE for an executable)\n\n"
               "HEAP is a heap dump (runtime/debug.WriteHeapDump), an ELF core file (goheap\n"
               "snap, gcore, GOTRACEBACK=crash), a URL serving one, or --pid PID for a live\n"
               "process. EXE, the program's executable, adds Go types, fields, globals and\n"
               "source lines (a core finds its own).\n\n"
               "commands:\n",
               static_cast<int>(goheap::goheapVersion().size()), goheap::goheapVersion().data());
  for (const goheap::cli::Command& c : goheap::cli::allCommands()) {
    std::fprintf(out, "  %-11.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  }
  std::fprintf(
      out,
      "\nexamples:\n"
      "  goheap summary heap.dump             overview and top retainers\n"
      "  goheap top heap.dump -n 30           the 30 allocation sites retaining most\n"
      "  goheap paths heap.dump 0xc000123450  why that object is still alive\n"
      "  goheap top heap.dump ./server        the Go types retaining most\n"
      "  goheap suspects heap.dump ./server   what looks like a leak, and where it piles up\n"
      "  goheap diff old.dump new.dump        what grew, and what holds the new objects\n"
      "  goheap report new.dump old.dump      an HTML page and JSON of it all, for CI\n"
      "  goheap sql heap.dump ./server -e \"SELECT type, count(*) FROM objects GROUP BY type\"\n"
      "                                       your own question, in SQL (docs/sql.md)\n\n"
      "'goheap COMMAND --help' explains a command and its flags.\n"
      "To write a dump from a Go program:\n"
      "  f, _ := os.Create(\"heap.dump\"); debug.WriteHeapDump(f.Fd()); f.Close()\n");
}

// "unknown command 'X'; did you mean 'Y'?" on stderr; the usage exit code.
int unknownCommand(std::string_view given) {
  std::vector<std::string> names;
  for (const goheap::cli::Command& c : goheap::cli::allCommands()) names.emplace_back(c.name);
  std::string message = "unknown command '" + std::string(given) + "'";
  if (auto close = goheap::cli::closestMatch(given, names)) {
    message += "; did you mean '" + *close + "'?";
  }
  std::fprintf(stderr, "goheap: %s\nrun 'goheap help' for the list of commands\n", message.c_str());
  return goheap::cli::kExitUsage;
}

int runCommandLine(int argc, char** argv) {
  if (argc < 2) {
    printUsage(stderr);
    return goheap::cli::kExitUsage;
  }
  const std::string_view command = argv[1];
  if (command == "help" || command == "--help" || command == "-h") {
    if (argc >= 3) {
      for (const goheap::cli::Command& c : goheap::cli::allCommands()) {
        if (c.name == std::string_view(argv[2])) {
          const char* help_args[] = {"--help"};
          return c.run(1, help_args);
        }
      }
      return unknownCommand(argv[2]);
    }
    printUsage(stdout);
    return goheap::cli::kExitOk;
  }
  if (command == "version" || command == "--version") {
    // The release, then the commit: what a bug report needs.
    const std::string_view commit = goheap::goheapCommit();
    std::printf(
        "goheap %s\ncommit %s\n", goheap::goheapFullVersion().c_str(),
        commit.empty() ? "unknown (built from a tree without .git)" : std::string(commit).c_str());
    return goheap::cli::kExitOk;
  }
  for (const goheap::cli::Command& c : goheap::cli::allCommands()) {
    if (c.name == command) return c.run(argc - 2, argv + 2);
  }
  return unknownCommand(command);
}

}  // namespace

// Every command's output ends here: a write to standard output that failed
// (a full disk, /dev/full) fails the run, naming it, instead of exiting 0
// with the output lost.
int main(int argc, char** argv) {
  goheap::keepLargeAllocationsMapped();
  const int code = runCommandLine(argc, argv);
  if (goheap::Status s = goheap::finishStandardOutput(); !s) {
    std::fprintf(stderr, "goheap: %s\n", s.error().message().c_str());
    return code == goheap::cli::kExitOk ? goheap::cli::kExitFailure : code;
  }
  return code;
}
