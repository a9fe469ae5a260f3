# Sourced by make-dumps.sh: the persistent cache of what it makes, in a
# folder outside the build folder, so that a new clone (CI's) takes the
# executables, dumps and oracle outputs an earlier run on this machine made
# instead of building and running every program again (minutes, against
# seconds). A machine without the cache builds everything, as before.
#
# Where: GOHEAP_TEST_DUMP_CACHE, else $XDG_CACHE_HOME/goheap/test-dumps, else
# ~/.cache/goheap/test-dumps (toolchains.sh, test_cache_dir); it is off when
# GOHEAP_TEST_DUMP_CACHE is empty or "off". Removing the folder clears it.
#   <label>/<prog>/<key>/  what make-dumps.sh wrote from tests/programs/<prog>
#                          with toolchain <label>, by its path below
#                          OUTDIR/<label>: the executables, dumps and reports
#                          of every variant (pie/, stripped/, cross/,
#                          debugfile/ ...) and the oracles' outputs over them
#   go-build/              the Go build cache (GOCACHE; capture/test.sh's
#                          too), so a program that changed is rebuilt in
#                          seconds; Go trims it itself
#
# <key> is a SHA-256 over everything that made the entry, so an entry is
# taken only when all of it is the same:
#   - the program's files: tests/programs/<prog>/ and the folders its go.mod
#     replaces modules with (capture/ for captureprog);
#   - the scripts that build and run it, which choose the variants, their
#     flags and environments (make-dumps.sh, this file, toolchains.sh,
#     split-debug.sh, check-report.py), and the oracle programs (binoracle/,
#     dwarforacle/);
#   - the toolchain: its label, the path and `go version` of its go binary,
#     and every file of its GOROOT by name, size and modification time;
#   - what else the outputs depend on: the versions of gcc and ld, and CC,
#     CGO_CFLAGS and CGO_LDFLAGS (external linking), objcopy's version
#     (split-debug.sh), which qemu-user runners are installed and their
#     versions (cross/ dumps are written only under them), and whether
#     check-report.py checks the retention reports.
# Nothing of goheap's C++ build is in a key: the outputs are the Go
# programs' alone. A dump taken from the cache was written by another run of
# the same executable (other addresses, the same heap).
#
# An output is <prog>'s when its file name is <prog>, or starts with <prog>
# and a "." or "-" (zoo.dump, cross/zoo-arm, debugfile/zoo-stripped).
# OUTDIR/.cache-keys/<label>/<prog> records the key of what OUTDIR/<label>
# holds of <prog>, and those files. When it records another key (or none),
# the files it lists are removed, and the entry of the new key is copied in
# when the cache has it; else every output of <prog> is built anew, whatever
# its time. Copied files all get one modification time, later than their
# sources', so that make-dumps.sh's freshness checks keep them. After a run
# of the toolchain without errors, each program's outputs are stored under
# its key when the cache does not have it yet (copied into a temporary
# folder, renamed into place: a reader never sees half an entry), and each
# <label>/<prog> keeps the DUMP_CACHE_KEEP (3) keys used last.
# shellcheck shell=bash

# The cache's folder, "" when it is off.
DUMP_CACHE=$(test_cache_dir)
if [ -n "$DUMP_CACHE" ]; then
  if mkdir -p "$DUMP_CACHE" 2>/dev/null && [ -w "$DUMP_CACHE" ]; then
    DUMP_CACHE=$(cd "$DUMP_CACHE" && pwd)
  else
    echo "make-dumps: cannot write the test-dump cache $DUMP_CACHE; building without it" >&2
    DUMP_CACHE=""
  fi
fi
DUMP_CACHE_KEEP=3

# The label being worked on, its key inputs, and per program (a folder of
# tests/programs with a main.go): its key, whether OUTDIR/<label> holds its
# outputs for that key ("trusted"), and the outputs make-dumps.sh said it
# makes (paths below OUTDIR/<label>, one a line).
cache_label=""
declare -A cache_key=() cache_trusted=() cache_outputs=()

# SHA-256 of the files below each DIR, by their paths below it.
tree_digest() { # dir...
  local dir
  for dir in "$@"; do
    (cd "$dir" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
  done | sha256sum | cut -d' ' -f1
}

# The local folders DIR's go.mod replaces modules with (captureprog:
# ../../../capture).
replace_targets() { # dir
  [ -f "$1/go.mod" ] || return 0
  local target
  sed -n 's/^replace .*=> *\(\.[^ ]*\) *$/\1/p' "$1/go.mod" | while read -r target; do
    echo "$1/$target"
  done
}

# SHA-256 of what every program built with toolchain LABEL depends on
# besides its own files (see the top).
label_digest() { # label go root
  local tool
  {
    echo "goheap test-dump cache 1"
    echo "$1 $(readlink -f "$2")"
    "$2" version
    (cd "$3" && find -L . -type f -printf '%P %s %T@\n' | LC_ALL=C sort) | sha256sum
    (cd "$HERE" && sha256sum make-dumps.sh dump-cache.sh toolchains.sh split-debug.sh check-report.py)
    tree_digest "$HERE/binoracle" "$HERE/dwarforacle"
    for tool in gcc ld objcopy qemu-s390x-static qemu-arm-static; do
      if command -v "$tool" >/dev/null; then
        echo "$tool $("$tool" --version 2>&1 | head -n 1)"
      else
        echo "$tool none"
      fi
    done
    if command -v python3 >/dev/null; then echo "report check ${GOHEAP_SKIP_REPORT_CHECK:-0}"; fi
    # What go_clean_environment leaves that the external linker reads.
    echo "CC=${CC:-} CGO_CFLAGS=${CGO_CFLAGS:-} CGO_LDFLAGS=${CGO_LDFLAGS:-}"
  } | sha256sum | cut -d' ' -f1
}

# Starts LABEL's work: the key of every program, and OUTDIR/<label> made to
# hold, for each, either the outputs of its key (kept from an earlier run, or
# copied from the cache) or none that count.
cache_begin() { # label go root
  [ -n "$DUMP_CACHE" ] || return 0
  local label=$1 digest dir prog key record entry restored=()
  # An output is its program's by its name (cache_claim): a program's own
  # name must end where the outputs' suffixes begin.
  for dir in "$HERE"/*/; do
    prog=$(basename "$dir")
    case "$prog" in
      *[.-]*)
        echo "make-dumps: tests/programs/$prog: a name with '.' or '-' turns the cache off" >&2
        return 1
        ;;
    esac
  done
  cache_label=$label
  digest=$(label_digest "$1" "$2" "$3")
  mkdir -p "$OUT/.cache-keys/$label"
  for dir in "$HERE"/*/; do
    prog=$(basename "$dir")
    [ -f "$dir/main.go" ] || continue
    local targets=()
    mapfile -t targets < <(replace_targets "$HERE/$prog")
    key=$({ echo "$digest $prog"; tree_digest "$HERE/$prog" "${targets[@]}"; } | sha256sum | cut -d' ' -f1)
    cache_key[$prog]=$key
    cache_trusted[$prog]=0
    record="$OUT/.cache-keys/$label/$prog"
    if [ -f "$record" ] && [ "$(head -n 1 "$record")" = "$key" ]; then
      cache_trusted[$prog]=1
      continue
    fi
    # Another key's outputs: gone, so that nothing of them is taken for this
    # key's.
    if [ -f "$record" ]; then
      tail -n +2 "$record" | (cd "$OUT/$label" && xargs -r -d '\n' rm -f --)
      rm -f "$record"
    fi
    entry="$DUMP_CACHE/$label/$prog/$key"
    [ -d "$entry" ] || continue
    touch "$entry" # used last: kept longest
    local files=()
    mapfile -t files < <(cd "$entry" && find . -type f -printf '%P\n' | LC_ALL=C sort)
    # What is in the entry, not the entry (a private temporary folder's mode).
    if cp -R --preserve=mode --reflink=auto -- "$entry"/* "$OUT/$label/" 2>/dev/null; then
      { echo "$key"; printf '%s\n' "${files[@]}"; } >"$record"
      cache_trusted[$prog]=1
      restored+=("${files[@]}")
      echo "make-dumps: $label/$prog: ${#files[@]} files from the cache"
    else
      # Pruned while it was read, by a run in another clone: built instead.
      (cd "$OUT/$label" && rm -f -- "${files[@]}")
    fi
  done
  # One time for all the copies, later than every source: no copy is older
  # than another it was made from.
  if [ ${#restored[@]} -gt 0 ]; then
    local stamp="$OUT/.cache-keys/$label/.restored"
    touch "$stamp"
    (cd "$OUT/$label" && printf '%s\0' "${restored[@]}" | xargs -0 touch -c -r "$stamp" --)
  fi
}

# Says that make-dumps.sh makes each OUTPUT (a path below OUTDIR/<label>; a
# missing one is not stored); false when one of them belongs to a program
# whose outputs OUTDIR/<label> does not hold for its key, and so must be
# built anew. An output belongs to the program its file name starts with,
# up to the first "." or "-" (zoo.dump, cross/zoo-arm, debugfile/zoo-stripped).
cache_claim() { # output...
  [ -n "$cache_label" ] || return 0
  local out rel name prog status=0
  for out in "$@"; do
    rel=${out#"$OUT/$cache_label/"}
    [ "$rel" != "$out" ] || continue
    name=${rel##*/}
    prog=${name%%[.-]*}
    if [ -z "${cache_key[$prog]:-}" ]; then
      echo "make-dumps: $cache_label/$rel is no program's output (its name must start with the program's): not cached" >&2
      continue
    fi
    cache_outputs[$prog]+="$rel"$'\n'
    [ "${cache_trusted[$prog]}" = 1 ] || status=1
  done
  return $status
}

# Ends LABEL's work, which had no errors: records what OUTDIR/<label> holds
# for each program's key, and stores the outputs of the keys the cache lacks.
cache_store() {
  [ -n "$cache_label" ] || return 0
  local label=$cache_label prog key dir entry tmp files=()
  for prog in "${!cache_outputs[@]}"; do
    key=${cache_key[$prog]}
    mapfile -t files < <(cd "$OUT/$label" && printf '%s' "${cache_outputs[$prog]}" | LC_ALL=C sort -u |
      while read -r rel; do if [ -f "$rel" ]; then echo "$rel"; fi; done)
    [ ${#files[@]} -gt 0 ] || continue
    { echo "$key"; printf '%s\n' "${files[@]}"; } >"$OUT/.cache-keys/$label/$prog"
    cache_trusted[$prog]=1
    dir="$DUMP_CACHE/$label/$prog"
    entry="$dir/$key"
    [ -d "$entry" ] && continue
    mkdir -p "$dir"
    tmp=$(mktemp -d "$dir/.tmp.XXXXXX")
    if (cd "$OUT/$label" && cp --parents --preserve=mode --reflink=auto -- "${files[@]}" "$tmp/") &&
      mv -T "$tmp" "$entry" 2>/dev/null; then
      echo "make-dumps: $label/$prog: ${#files[@]} files stored in the cache"
    fi
    # Another run stored the same key first, or the copy failed: its own
    # entry is as good.
    rm -rf "$tmp"
    cache_prune "$dir"
  done
}

# Keeps the DUMP_CACHE_KEEP entries of DIR used last, and temporary folders
# younger than an hour (their run may go on).
cache_prune() { # dir
  find "$1" -mindepth 1 -maxdepth 1 -name '.tmp.*' -mmin +60 -exec rm -rf {} +
  find "$1" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%T@ %p\n' | sort -rn |
    tail -n +$((DUMP_CACHE_KEEP + 1)) | cut -d' ' -f2- | while read -r old; do rm -rf "$old"; done
}
