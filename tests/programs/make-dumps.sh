#!/usr/bin/env bash
# Usage: make-dumps.sh OUTDIR
#
# Builds the Go test programs tests/programs/<prog>/main.go with each Go
# toolchain (toolchains.sh: go1.19, go1.21 to go1.27) and runs
# them, writing
#   OUTDIR/<label>/<prog>        the executable (with DWARF, -trimpath)
#   OUTDIR/<label>/<prog>.dump   the heap dump it wrote
#   OUTDIR/<label>/<prog>.json   its report of what it built (see retention/main.go)
#   OUTDIR/<label>/leaks.old.dump  the leaks program's first dump, before its
#                                leaks grow (leaks.dump is the second)
#   OUTDIR/<label>/<prog>.symtab.json  what Go's debug/gosym reads from the
#                                executable (tests/programs/binoracle, built
#                                with the same toolchain)
#   OUTDIR/<label>/coreprog      tests/programs/coreprog, built only (the
#                                tests run it and read the core it dumps);
#                                also cross/coreprog-arm64 (run under qemu)
#   OUTDIR/<label>/coreprog-stripped  the same built with -ldflags=-s -w
#   OUTDIR/<label>/goroutineprog tests/programs/goroutineprog, built only
#                                (tests/core/goroutines_test.cpp runs it);
#                                also cross/goroutineprog-arm64
#   OUTDIR/<label>/memprog[.dump|.json]  tests/programs/memprog, built with
#                                cgo and run (tests/core/process_memory_test.cpp
#                                also runs it for a core or a snap); also
#                                stripped/memprog
#   OUTDIR/<label>/captureprog   tests/programs/captureprog, built only, with
#                                the capture package (capture/, through its
#                                go.mod's replace): tests/cli/
#                                capture_end_to_end_test.cpp runs it and reads
#                                its heap over HTTP
#   OUTDIR/<label>/watchprog     tests/programs/watchprog, built only: it
#                                leaks a type all the time for
#                                tests/cli/watch_test.cpp (goheap watch)
#   OUTDIR/<label>/pie/retention[.dump|.json]  the retention program built
#                                with -buildmode=pie and run
#   OUTDIR/<label>/stripped/{funcs,zoo,leaks}[.dump|.json]  the funcs, zoo and leaks
#                                programs built with -ldflags='-s -w' and run
#   OUTDIR/<label>/{pie,external,external-pie}/zoo[.dump|.json]  zoo built
#                                as a PIE, linked externally, and both
#                                (go1.24, go1.26, go1.27); external-stripped/
#                                zoo also stripped (go1.26, go1.27)
#   OUTDIR/<label>/cross/retention-{s390x,arm}[.symtab.json|.dump|.json]  the
#                                retention program cross-built, its oracle and,
#                                run under qemu-user, its dump and report;
#                                inlining and zoo likewise
#   EXE.objdump.txt              for zoo, leaks and goleak: `go tool objdump` of
#                                their package main (the code oracle)
#   EXE.dwarf.json               for the retention and zoo executables (cross/
#                                included) and stripped/funcs: what Go's
#                                debug/dwarf reads from EXE
#                                (tests/programs/dwarforacle, built with the
#                                same toolchain)
#   OUTDIR/<label>/debugfile/zoo[-stripped[.debug]]  for go1.24 and go1.26:
#                                zoo with a GNU build ID, its dump, and the
#                                same split into a stripped executable and
#                                its debug file (split-debug.sh)
# Every label gets all of that except go1.25, which gets only the typing and
# leak-hunting programs (zoo, leaks) with their oracles: the tests read it
# for those alone (tests/support/go_versions.h); and go1.21 to go1.23, which
# get what depends on the release: zoo, leaks, goleak, retention and funcs
# (stripped: funcs, zoo, goleak, leaks), coreprog (and its stripped and
# arm64 builds) and goroutineprog. go1.27 also builds zoo
# with GOEXPERIMENT=nogreenteagc and mapsplitgroup (OUTDIR/go1.27/nogreentea/,
# OUTDIR/go1.27/mapsplitgroup/).
#
# Also OUTDIR/gobin/<exe>.symtab.json for the old ELF executables in
# GOHEAP_GOBIN_DIR (default ../shared/testdata/gobin beside the checkout),
# read by the Go 1.19 oracle, and for the Mach-O and PE ones there, read by the
# Go 1.24 oracle. Outputs newer than their sources, the toolchain and these
# scripts are kept, so a rerun does nothing. What a run made is also kept in
# a cache outside OUTDIR (~/.cache/goheap/test-dumps; GOHEAP_TEST_DUMP_CACHE
# names another folder, or "off"), under a key of everything it was made
# from, so that a new clone copies it from there (dump-cache.sh); the Go
# build cache is go-build/ in that folder (OUTDIR/.gocache without one).
# After a fresh run the retention report is checked against the dump by
# check-report.py (if python3 is there), so a program whose claims do not
# hold fails here rather than in goheap's tests.
#
# Toolchains: see toolchains.sh (GOHEAP_GO119, GOHEAP_GO124 ... GOHEAP_GO127
# name a go binary). GOHEAP_GO_LABELS="go1.26 go1.27" makes only those. A
# missing toolchain is an error. The toolchains are worked on two at a time
# (the Go compiler is mostly serial, the qemu runs wholly so).
#
# ctest runs this as the fixture that the C++ tests need (tests/CMakeLists.txt).
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SCRIPT="$HERE/$(basename "${BASH_SOURCE[0]}")"
# shellcheck source=tests/programs/toolchains.sh
. "$HERE/toolchains.sh"
# shellcheck source=tests/programs/dump-cache.sh
. "$HERE/dump-cache.sh"

go_clean_environment
GOCACHE="$OUT/.gocache"
if [ -n "$DUMP_CACHE" ]; then GOCACHE="$DUMP_CACHE/go-build"; fi
export GOCACHE GOPATH="$OUT/.gopath" GOMODCACHE="$OUT/.gopath/pkg/mod"
mkdir -p "$GOCACHE" "$GOPATH"

read -r -a labels <<<"${GOHEAP_GO_LABELS:-${GOHEAP_ALL_GO_LABELS[*]}}"

# True when every OUTPUT is a non-empty file newer than every SOURCE that is a
# file (directories and missing paths are ignored), and, with the cache,
# OUTDIR holds its program's outputs for its key (cache_claim).
fresh() { # output... -- source...
  local outputs=() out src
  while [ "$1" != -- ]; do
    outputs+=("$1")
    shift
  done
  shift
  cache_claim "${outputs[@]}" || return 1
  for out in "${outputs[@]}"; do
    [ -s "$out" ] || return 1
    for src in "$@"; do
      if [ -f "$src" ] && [ "$src" -nt "$out" ]; then return 1; fi
    done
  done
}

# Builds DIR/main.go with GO (GOROOT ROOT, extra build flags after OUTDIR)
# into OUTDIR/<prog> and runs it to write OUTDIR/<prog>.dump and .json, unless
# they are newer than their sources; then checks the report against the dump.
make_program() { # label go root dir outdir [build flags...]
  local label=$1 go=$2 root=$3 dir=$4 outdir=$5
  shift 5
  local prog exe dump json
  prog=$(basename "$dir")
  mkdir -p "$outdir"
  exe="$outdir/$prog" dump="$outdir/$prog.dump" json="$outdir/$prog.json"

  # leaks's first dump, which fresh is not asked about.
  cache_claim "$outdir/$prog.old.dump" || true
  if fresh "$exe" "$dump" "$json" -- "$SCRIPT" "$HERE/toolchains.sh" "$HERE/check-report.py" \
    "$(readlink -f "$go")" "$dir"*; then
    echo "make-dumps: ${outdir#"$OUT/"}/$prog up to date"
    return 0
  fi

  echo "make-dumps: ${outdir#"$OUT/"}/$prog: building with $("$go" env GOVERSION) $*"
  rm -f "$exe" "$dump" "$json" "$outdir/$prog.old.dump"
  if ! (cd "$dir" && GOROOT=$root "$go" build -trimpath -buildvcs=false "$@" -o "$exe.tmp" main.go); then
    echo "make-dumps: $label/$prog: build failed" >&2
    rm -f "$exe.tmp"
    return 1
  fi
  mv "$exe.tmp" "$exe"
  run_program "$label/$prog" "$prog" "$exe" "$dump" "$json" || return 1
  # A program that writes two dumps (leaks: before and after its leaks grow)
  # writes the first to DUMP.old.
  if [ -f "$dump.tmp.old" ]; then mv "$dump.tmp.old" "$outdir/$prog.old.dump"; fi
}

# Runs EXE (through RUNNER..., a qemu-user binary, if given) to write DUMP
# and JSON, checks that DUMP is a heap dump and, for the retention program,
# the report against the dump; leaves DUMP.tmp.old for the caller.
run_program() { # what prog exe dump json [runner...]
  local what=$1 prog=$2 exe=$3 dump=$4 json=$5
  shift 5
  if ! timeout 300 "$@" "$exe" "$dump.tmp" "$json.tmp"; then
    echo "make-dumps: $what: running it ${1:+under $1 }failed" >&2
    rm -f "$dump.tmp" "$json.tmp"
    return 1
  fi
  if ! head -c 16 "$dump.tmp" | grep -q '^go1.7 heap dump$'; then
    echo "make-dumps: $what: $dump.tmp is not a go1.7 heap dump" >&2
    return 1
  fi
  # check-report.py knows the retention program's report; the others' reports
  # are checked by the C++ tests alone.
  if [ "$prog" = retention ] && command -v python3 >/dev/null && [ "${GOHEAP_SKIP_REPORT_CHECK:-0}" != 1 ]; then
    if ! python3 "$HERE/check-report.py" "$dump.tmp" "$json.tmp"; then
      echo "make-dumps: $what: the report does not match the dump (see above)" >&2
      return 1
    fi
  fi
  mv "$json.tmp" "$json"
  mv "$dump.tmp" "$dump"
}

# Runs COMMAND... with its standard output into FILE, unless FILE is newer
# than the files among COMMAND's words (the tool and the executable it reads).
write_output() { # file command...
  local file=$1
  shift
  if fresh "$file" -- "$@"; then return 0; fi
  if ! "$@" >"$file.tmp"; then
    echo "make-dumps: $* failed" >&2
    rm -f "$file.tmp"
    return 1
  fi
  mv "$file.tmp" "$file"
}

# What `go build` builds in DIR: the package, where a go.mod makes it a
# module (coreprog, whose files have build constraints), else main.go alone.
build_target() { # dir
  if [ -f "$1/go.mod" ]; then echo .; else echo main.go; fi
}

# The Go files of the local directories DIR's go.mod replaces a module with
# (captureprog: ../../../capture), so that a change there rebuilds DIR.
replaced_sources() { # dir
  [ -f "$1/go.mod" ] || return 0
  local target
  sed -n 's/^replace .*=> *\(\.[^ ]*\) *$/\1/p' "$1/go.mod" | while read -r target; do
    find "$1/$target" -type f \( -name '*.go' -o -name go.mod \)
  done
}

# Builds OUTDIR/<label>/<tool> (binoracle, dwarforacle) with the toolchain
# being worked on ($go, $root); with NAME and FLAGS, as OUTDIR/<label>/NAME
# built with those go build flags.
build_tool() { # label tool [name [flags...]]
  local label=$1 tool=$2 name=${3:-$2}
  shift $(($# < 3 ? $# : 3))
  local exe="$OUT/$label/$name" replaced
  mapfile -t replaced < <(replaced_sources "$HERE/$tool")
  if fresh "$exe" -- "$HERE/$tool/"* "${replaced[@]}" "$SCRIPT" "$(readlink -f "$go")"; then
    return 0
  fi
  echo "make-dumps: $label/$name: building"
  if ! (cd "$HERE/$tool" && GOROOT=$root "$go" build -trimpath -buildvcs=false "$@" -o "$exe.tmp" \
    "$(build_target "$HERE/$tool")"); then
    echo "make-dumps: $label/$name: build failed" >&2
    rm -f "$exe.tmp"
    return 1
  fi
  mv "$exe.tmp" "$exe"
}

# cross_build LABEL PROG NAME RUNNER ENV... [-- BUILDFLAGS...]: builds
# tests/programs/PROG for another target as OUTDIR/LABEL/cross/NAME with
# its binoracle sidecar and build ID; with a RUNNER (a qemu-user binary
# that is installed) also runs it, writing NAME.dump and NAME.json. Uses
# $go, $root and $oracle of the current toolchain.
cross_build() {
  local label=$1 prog=$2 name=$3 runner=$4
  shift 4
  local envs=() flags=()
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then
      shift
      flags=("$@")
      break
    fi
    envs+=("$1")
    shift
  done
  local exe="$OUT/$label/cross/$name"
  if [ -n "$runner" ] && ! command -v "$runner" >/dev/null; then runner=""; fi
  local outputs=("$exe" "$exe.symtab.json" "$exe.buildid")
  [ -n "$runner" ] && outputs+=("$exe.json" "$exe.dump")
  if fresh "${outputs[@]}" -- "$SCRIPT" "$HERE/toolchains.sh" "$oracle" "$(readlink -f "$go")" \
    "$HERE/$prog/"*; then
    return 0
  fi
  echo "make-dumps: $label/cross/$name: building"
  if ! (cd "$HERE/$prog" && env GOROOT="$root" GOOS=linux "${envs[@]}" \
    "$go" build -trimpath -buildvcs=false "${flags[@]}" -o "$exe.tmp" "$(build_target "$HERE/$prog")"); then
    echo "make-dumps: $label/cross/$name: build failed" >&2
    rm -f "$exe.tmp"
    return 1
  fi
  mv "$exe.tmp" "$exe"
  write_output "$exe.symtab.json" "$oracle" "$exe" || return 1
  write_output "$exe.buildid" "$go" tool buildid "$exe" || return 1
  if [ -n "$runner" ]; then
    run_program "$label/cross/$name" "$prog" "$exe" "$exe.dump" "$exe.json" "$runner" || return 1
  fi
}

# Everything for one toolchain; returns non-zero when anything failed, after
# doing the rest.
make_label() { # label
  local label=$1 go root oracle doracle dir prog exe status=0 start=$SECONDS
  go=$(go_binary "$label")
  root=$(toolchain_root "$label" "$go") || return 1
  mkdir -p "$OUT/$label"
  cache_begin "$label" "$go" "$root" || echo "make-dumps: $label: the cache failed; building what it lacks" >&2
  # Go 1.25 is tested for typing and the leak hunt only: zoo and leaks, amd64.
  # Go 1.21 to 1.23 for what depends on the release (tier "releases"): the
  # readers of the runtime's structures, its type descriptors and pclntab,
  # and the goroutine leak hunt; amd64, with coreprog also built for arm64.
  local full=1 tier=full
  case "$label" in
    go1.25) full=0 tier=typing ;;
    go1.21 | go1.22 | go1.23) full=0 tier=releases ;;
  esac

  local programs=()
  for dir in "$HERE"/*/; do
    prog=$(basename "$dir")
    [ -f "$dir/main.go" ] || continue
    # Tools run over the executables, and coreprog, which the tests run, below.
    [ "$prog" = binoracle ] || [ "$prog" = dwarforacle ] || [ "$prog" = coreprog ] || [ "$prog" = goroutineprog ] || [ "$prog" = captureprog ] || [ "$prog" = memprog ] || [ "$prog" = watchprog ] && continue
    case "$tier:$prog" in
      full:* | typing:zoo | typing:leaks) ;;
      releases:zoo | releases:leaks | releases:goleak | releases:retention | releases:funcs) ;;
      *) continue ;;
    esac
    programs+=("$prog")
    make_program "$label" "$go" "$root" "$dir" "$OUT/$label" || status=1
  done
  if [ $full = 1 ]; then
    # The retention program as a position-independent executable, run: its
    # dump's addresses are the executable's plus a load bias goheap must find.
    make_program "$label" "$go" "$root" "$HERE/retention/" "$OUT/$label/pie" -buildmode=pie || status=1
  fi
  if [ $tier != typing ]; then
    # The funcs program stripped of its symbol table and DWARF: names come
    # from the pclntab alone.
    make_program "$label" "$go" "$root" "$HERE/funcs/" "$OUT/$label/stripped" "-ldflags=-s -w" || status=1
    # zoo stripped the same way: its types come from the runtime's type
    # descriptors, and the unstripped zoo is its oracle.
    make_program "$label" "$go" "$root" "$HERE/zoo/" "$OUT/$label/stripped" "-ldflags=-s -w" || status=1
    make_program "$label" "$go" "$root" "$HERE/goleak/" "$OUT/$label/stripped" "-ldflags=-s -w" || status=1
  fi
  # memprog, with cgo (C's malloc is what it measures): run for its dump
  # and report; tests/core/process_memory_test.cpp runs it for cores and snaps.
  if [ $tier != typing ]; then
    CGO_ENABLED=1 make_program "$label" "$go" "$root" "$HERE/memprog/" "$OUT/$label" || status=1
    CGO_ENABLED=1 make_program "$label" "$go" "$root" "$HERE/memprog/" "$OUT/$label/stripped" \
      "-ldflags=-s -w" || status=1
  fi
  # leaks stripped (every release, as the leak hunt): diff must name the
  # type that leaked without DWARF.
  make_program "$label" "$go" "$root" "$HERE/leaks/" "$OUT/$label/stripped" "-ldflags=-s -w" || status=1
  # zoo linked every way a Go executable is linked, where the way changes
  # what the file holds: by the external (C) linker, which Go 1.26+ gives
  # sections of their own and a pclntab without its text start, as a PIE,
  # and both; for Go 1.26+ also external and stripped, as Debian builds.
  case "$label" in
    go1.24 | go1.26 | go1.27)
      make_program "$label" "$go" "$root" "$HERE/zoo/" "$OUT/$label/pie" -buildmode=pie || status=1
      CGO_ENABLED=1 make_program "$label" "$go" "$root" "$HERE/zoo/" "$OUT/$label/external" \
        -ldflags=-linkmode=external || status=1
      CGO_ENABLED=1 make_program "$label" "$go" "$root" "$HERE/zoo/" "$OUT/$label/external-pie" \
        -buildmode=pie -ldflags=-linkmode=external || status=1
      ;;
  esac
  case "$label" in
    go1.26 | go1.27)
      CGO_ENABLED=1 make_program "$label" "$go" "$root" "$HERE/zoo/" "$OUT/$label/external-stripped" \
        "-ldflags=-linkmode=external -s -w" || status=1
      ;;
  esac

  # The pclntab oracle: binoracle, built with this toolchain (Go 1.19's
  # debug/gosym cannot read the Go 1.20+ layout), prints what debug/gosym reads
  # from each executable into OUTDIR/<label>/<prog>.symtab.json.
  oracle="$OUT/$label/binoracle"
  build_tool "$label" binoracle || return 1
  # coreprog is only built: tests/core/kernel_core_test.cpp runs it, and it
  # dies with a core file.
  if [ $tier != typing ]; then build_tool "$label" coreprog || status=1; fi
  # Its stripped twin (-s -w moves nothing: the loaded sections are the
  # same bytes), which tests/core/stripped_test.cpp reads the same cores with.
  if [ $tier != typing ]; then build_tool "$label" coreprog coreprog-stripped "-ldflags=-s -w" || status=1; fi
  # goroutineprog likewise: tests/core/goroutines_test.cpp runs it for a core
  # whose goroutines it compares with the runtime's own traceback.
  if [ $tier != typing ]; then build_tool "$label" goroutineprog || status=1; fi
  # captureprog likewise: tests/cli/capture_end_to_end_test.cpp runs it and
  # reads its heap through the capture package's handler.
  if [ $full = 1 ]; then build_tool "$label" captureprog || status=1; fi
  # watchprog likewise: tests/cli/watch_test.cpp runs it for goheap watch.
  if [ $full = 1 ]; then build_tool "$label" watchprog || status=1; fi
  for prog in "${programs[@]}"; do
    exe="$OUT/$label/$prog"
    [ -f "$exe.dump" ] || continue
    write_output "$exe.symtab.json" "$oracle" "$exe" || status=1
    write_output "$exe.buildid" "$go" tool buildid "$exe" || status=1
  done

  # Cross-built executables (OUTDIR/<label>/cross/), so the readers are
  # checked on a big-endian target (s390x, PC quantum 2), a 32-bit one (arm,
  # quantum 4), and, with Go 1.19, on a PIE, a stripped file, PE and Mach-O.
  # The retention, inlining and zoo programs are also run under qemu-user
  # when that is installed (a second each), for the dumps their executables
  # wrote, the runtime's own frames and typed big-endian and 32-bit heaps.
  if [ $full = 1 ]; then
    mkdir -p "$OUT/$label/cross"
    cross_build "$label" retention retention-s390x qemu-s390x-static GOARCH=s390x || status=1
    cross_build "$label" retention retention-arm qemu-arm-static GOARCH=arm GOARM=7 || status=1
    cross_build "$label" inlining inlining-s390x qemu-s390x-static GOARCH=s390x || status=1
    cross_build "$label" inlining inlining-arm qemu-arm-static GOARCH=arm GOARM=7 || status=1
    cross_build "$label" zoo zoo-s390x qemu-s390x-static GOARCH=s390x || status=1
    cross_build "$label" zoo zoo-arm qemu-arm-static GOARCH=arm GOARM=7 || status=1
    # Built only: tests/core/kernel_core_test.cpp runs it under qemu-aarch64
    # for the arm64 core qemu writes.
    cross_build "$label" goroutineprog goroutineprog-arm64 "" GOARCH=arm64 || status=1
  fi
  if [ $tier != typing ]; then
    mkdir -p "$OUT/$label/cross"
    cross_build "$label" coreprog coreprog-arm64 "" GOARCH=arm64 || status=1
  fi
  # Go 1.27 built with the experiments that change runtime layouts goheap
  # reads: GOEXPERIMENT=nogreenteagc (spans without Green Tea's inline mark
  # bits) into OUTDIR/go1.27/nogreentea/, and mapsplitgroup (map groups as
  # {ctrl, keys, elems}) into OUTDIR/go1.27/mapsplitgroup/.
  if [ "$label" = go1.27 ]; then
    GOEXPERIMENT=nogreenteagc make_program "$label" "$go" "$root" "$HERE/zoo/" \
      "$OUT/$label/nogreentea" || status=1
    GOEXPERIMENT=mapsplitgroup make_program "$label" "$go" "$root" "$HERE/zoo/" \
      "$OUT/$label/mapsplitgroup" || status=1
  fi
  # The zoo program split as distributions ship Go programs (its DWARF in a
  # separate debug file): split-debug.sh, for two releases.
  # Its outputs are zoo's (debugfile/zoo-stripped ...): made anew when zoo's
  # in OUTDIR are not of zoo's key.
  if [ "$label" = go1.24 ] || [ "$label" = go1.26 ]; then
    cache_claim "$OUT/$label/debugfile/zoo" || rm -rf "$OUT/$label/debugfile"
    if bash "$HERE/split-debug.sh" "$OUT" "$label"; then
      cache_claim "$OUT/$label/debugfile"/* || true
    else
      status=1
    fi
  fi
  if [ "$label" = go1.19 ]; then
    cross_build "$label" retention retention-pie "" GOARCH=amd64 -- -buildmode=pie || status=1
    cross_build "$label" retention retention-stripped "" GOARCH=amd64 -- "-ldflags=-s -w" || status=1
    cross_build "$label" retention retention-windows.exe "" GOOS=windows GOARCH=amd64 || status=1
    cross_build "$label" retention retention-darwin "" GOOS=darwin GOARCH=amd64 || status=1
  fi

  # The DWARF oracle: dwarforacle, built with this toolchain, prints what
  # debug/dwarf reads from each executable into EXE.dwarf.json (a file
  # without DWARF gets a JSON that says why).
  doracle="$OUT/$label/dwarforacle"
  build_tool "$label" dwarforacle || return 1
  for exe in "$OUT/$label/retention" "$OUT/$label/zoo" "$OUT/$label/pie/retention" \
    "$OUT/$label/stripped/funcs" "$OUT/$label"/cross/retention-*; do
    [ -f "$exe" ] || continue
    case "$exe" in *.json | *.buildid | *.dump | *.tmp) continue ;; esac
    write_output "$exe.dwarf.json" "$doracle" "$exe" || status=1
  done
  # The code oracle: Go's own disassembler over package main, which names
  # the type descriptor each allocation loads (tests/bin/allocation_calls_test.cpp).
  for exe in "$OUT/$label/zoo" "$OUT/$label/leaks" "$OUT/$label/goleak"; do
    [ -f "$exe" ] || continue
    write_output "$exe.objdump.txt" "$go" tool objdump -s '^main\.' "$exe" || status=1
  done
  if [ $status = 0 ]; then
    cache_store || echo "make-dumps: $label: storing into the cache failed" >&2
  fi
  echo "make-dumps: $label done in $((SECONDS - start)) s"
  return $status
}

# Two toolchains at a time, the oldest first; each one's lines say its label.
status=0
pids=()
for label in "${labels[@]}"; do
  if [ ${#pids[@]} -ge 2 ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
  make_label "$label" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

# Writes ORACLE's symbol table JSON of each existing EXE into $OUT/gobin,
# unless it is already newer than both.
oracle_over() {
  local oracle=$1 exe
  shift
  [ -x "$oracle" ] || return 0
  mkdir -p "$OUT/gobin"
  for exe in "$@"; do
    [ -f "$exe" ] || continue
    write_output "$OUT/gobin/$(basename "$exe").symtab.json" "$oracle" "$exe" || status=1
  done
}

# Old executables (shared testdata), when they are present on this machine:
# Go 1.5, 1.16 and 1.18/386 through the Go 1.19 oracle; the Go 1.20 Mach-O
# and Go 1.22 PE ones need the Go 1.24 oracle (Go 1.19's gosym predates the
# Go 1.20 table layout).
GOBIN_DIR=${GOHEAP_GOBIN_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/testdata/gobin}
if [ -d "$GOBIN_DIR" ]; then
  oracle_over "$OUT/go1.19/binoracle" "$GOBIN_DIR"/gold-linux-*
  oracle_over "$OUT/go1.24/binoracle" "$GOBIN_DIR"/gold-darwin-* "$GOBIN_DIR"/gold-windows-*
fi
exit $status
