#!/usr/bin/env bash
# Usage: make-dumps.sh OUTDIR
#
# Builds every Go test program tests/programs/<prog>/main.go with Go 1.19 and
# Go 1.24 and runs it, writing
#   OUTDIR/<label>/<prog>        the executable (with DWARF, -trimpath)
#   OUTDIR/<label>/<prog>.dump   the heap dump it wrote
#   OUTDIR/<label>/<prog>.json   its report of what it built (see retention/main.go)
#   OUTDIR/<label>/leaks.old.dump  the leaks program's first dump, before its
#                                leaks grow (leaks.dump is the second)
#   OUTDIR/<label>/<prog>.symtab.json  what Go's debug/gosym reads from the
#                                executable (tests/programs/binoracle, built
#                                with the same toolchain)
#   OUTDIR/<label>/pie/retention[.dump|.json]  the retention program built
#                                with -buildmode=pie and run
#   OUTDIR/<label>/stripped/funcs[.dump|.json]  the funcs program built with
#                                -ldflags='-s -w' and run
#   OUTDIR/<label>/cross/retention-{s390x,arm}[.symtab.json]  the retention
#                                program cross-built (not run) and its oracle
#   EXE.dwarf.json               for the retention executables (all of the
#                                above, cross/ included) and stripped/funcs:
#                                what Go's debug/dwarf reads from EXE
#                                (tests/programs/dwarforacle, built with the
#                                same toolchain)
# for label in go1.19 go1.24, and OUTDIR/gobin/<exe>.symtab.json for the old
# ELF executables in GOHEAP_GOBIN_DIR (default ../shared/testdata/gobin beside the checkout),
# read by the Go 1.19 oracle, and for the Mach-O and PE ones there, read by the
# Go 1.24 oracle. Outputs newer than the program's sources and
# this script are kept, so a rerun does nothing. After a fresh run the report
# is checked against the dump by check-report.py (if python3 is there), so a
# program whose claims do not hold fails here rather than in goheap's tests.
#
# Toolchains: GOHEAP_GO119 (default /usr/bin/go, Debian's golang-go) and
# GOHEAP_GO124 (default /opt/goheap/go1.24/usr/lib/go-1.24/bin/go, from
# scripts/install-deps.sh). A missing toolchain is an error.
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

GO119=${GOHEAP_GO119:-/usr/bin/go}
GO124=${GOHEAP_GO124:-${GOHEAP_GO124_DIR:-/opt/goheap/go1.24}/usr/lib/go-1.24/bin/go}

# A clean, self-contained Go environment: HOME may be unset in CI, and nothing
# from the caller's environment may change how the programs are built.
unset GOROOT GOOS GOARCH GOARM GO386 GOAMD64 GOFLAGS GO111MODULE GOEXPERIMENT GOWORK GODEBUG \
      GOGC GOMEMLIMIT GOMAXPROCS GOTRACEBACK
export GOENV=off GOTOOLCHAIN=local CGO_ENABLED=0 GOPROXY=off GOTELEMETRY=off
export GOCACHE="$OUT/.gocache" GOPATH="$OUT/.gopath" GOMODCACHE="$OUT/.gopath/pkg/mod"
mkdir -p "$GOCACHE" "$GOPATH"

# Resolves a toolchain, checks it is the expected release, prints its GOROOT.
toolchain_root() { # label go-binary
  local label=$1 go=$2 version
  if [ ! -x "$go" ]; then
    echo "make-dumps: $label toolchain not found at $go (run scripts/install-deps.sh, or set GOHEAP_GO119 / GOHEAP_GO124)" >&2
    return 1
  fi
  if ! version=$("$go" env GOVERSION 2>&1); then
    echo "make-dumps: $go does not run: $version" >&2
    return 1
  fi
  case "$version" in
    "$label" | "$label".* | "$label"rc* ) ;;
    *) echo "make-dumps: $go is $version, expected $label" >&2; return 1 ;;
  esac
  "$go" env GOROOT
}

# Builds DIR/main.go with GO (GOROOT ROOT, extra build flags after OUTDIR)
# into OUTDIR/<prog> and runs it to write OUTDIR/<prog>.dump and .json, unless
# they are newer than their sources; then checks the report against the dump.
make_program() { # label go root dir outdir [build flags...]
  local label=$1 go=$2 root=$3 dir=$4 outdir=$5
  shift 5
  local prog exe dump json fresh src
  prog=$(basename "$dir")
  mkdir -p "$outdir"
  exe="$outdir/$prog" dump="$outdir/$prog.dump" json="$outdir/$prog.json"

  fresh=1
  for f in "$exe" "$dump" "$json"; do [ -s "$f" ] || fresh=0; done
  if [ $fresh = 1 ]; then
    for src in "$SCRIPT" "$HERE/check-report.py" "$(readlink -f "$go")" "$dir"*; do
      if [ -f "$src" ] && { [ "$src" -nt "$exe" ] || [ "$src" -nt "$dump" ] || [ "$src" -nt "$json" ]; }; then
        fresh=0
      fi
    done
  fi
  if [ $fresh = 1 ]; then
    echo "make-dumps: ${outdir#"$OUT/"}/$prog up to date"
    return 0
  fi

  echo "make-dumps: ${outdir#"$OUT/"}/$prog: building with $("$go" env GOVERSION) $*"
  rm -f "$exe" "$dump" "$json" "$outdir/$prog.old.dump"
  if ! (cd "$dir" && GOROOT=$root "$go" build -trimpath -buildvcs=false "$@" -o "$exe.tmp" main.go); then
    echo "make-dumps: $label/$prog: build failed" >&2
    rm -f "$exe.tmp"; return 1
  fi
  mv "$exe.tmp" "$exe"
  if ! timeout 300 "$exe" "$dump.tmp" "$json.tmp"; then
    echo "make-dumps: $label/$prog: running it failed" >&2
    rm -f "$dump.tmp" "$json.tmp"; return 1
  fi
  if ! head -c 16 "$dump.tmp" | grep -q '^go1.7 heap dump$'; then
    echo "make-dumps: $label/$prog: $dump.tmp is not a go1.7 heap dump" >&2
    return 1
  fi
  # check-report.py knows the retention program's report; the others' reports
  # are checked by the C++ tests alone.
  if [ "$prog" = retention ] && command -v python3 >/dev/null && [ "${GOHEAP_SKIP_REPORT_CHECK:-0}" != 1 ]; then
    if ! python3 "$HERE/check-report.py" "$dump.tmp" "$json.tmp"; then
      echo "make-dumps: $label/$prog: the report does not match the dump (see above)" >&2
      return 1
    fi
  fi
  # A program that writes two dumps (leaks: before and after its leaks grow)
  # writes the first to DUMP.old.
  if [ -f "$dump.tmp.old" ]; then mv "$dump.tmp.old" "$outdir/$prog.old.dump"; fi
  mv "$json.tmp" "$json"
  mv "$dump.tmp" "$dump"
}

# Writes EXE.buildid (what `go tool buildid` says) unless it is newer than
# EXE: the oracle of goheap's build ID reader.
write_buildid() { # go exe
  local go=$1 exe=$2
  if [ -s "$exe.buildid" ] && [ "$exe.buildid" -nt "$exe" ]; then return 0; fi
  if ! "$go" tool buildid "$exe" >"$exe.buildid.tmp"; then
    echo "make-dumps: go tool buildid failed on $exe" >&2
    rm -f "$exe.buildid.tmp"; return 1
  fi
  mv "$exe.buildid.tmp" "$exe.buildid"
}

# cross_build LABEL PROG NAME RUNNER ENV... [-- BUILDFLAGS...]: builds
# tests/programs/PROG for another target as OUTDIR/LABEL/cross/NAME with
# its binoracle sidecar and build ID; with a RUNNER (a qemu-user binary
# that is installed) also runs it, writing NAME.dump and NAME.json. Uses
# $go, $root and $oracle of the current toolchain.
cross_build() {
  local label=$1 prog=$2 name=$3 runner=$4; shift 4
  local envs=() flags=()
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then shift; flags=("$@"); break; fi
    envs+=("$1"); shift
  done
  local exe="$OUT/$label/cross/$name" sym="$OUT/$label/cross/$name.symtab.json"
  if [ -n "$runner" ] && ! command -v "$runner" >/dev/null; then runner=""; fi
  local outputs=("$exe" "$sym" "$exe.buildid")
  [ -n "$runner" ] && outputs+=("$exe.json" "$exe.dump")
  local fresh=1 f src
  for f in "${outputs[@]}"; do [ -s "$f" ] || fresh=0; done
  for src in "$SCRIPT" "$oracle" "$HERE/$prog/"*; do
    for f in "${outputs[@]}"; do
      if [ $fresh = 1 ] && [ -f "$src" ] && [ "$src" -nt "$f" ]; then fresh=0; fi
    done
  done
  [ $fresh = 1 ] && return 0
  echo "make-dumps: $label/cross/$name: building"
  if ! (cd "$HERE/$prog" && env GOROOT="$root" GOOS=linux "${envs[@]}" \
        "$go" build -trimpath -buildvcs=false "${flags[@]}" -o "$exe.tmp" main.go); then
    echo "make-dumps: $label/cross/$name: build failed" >&2
    rm -f "$exe.tmp"; status=1; return 0
  fi
  mv "$exe.tmp" "$exe"
  if ! "$oracle" "$exe" >"$sym.tmp"; then
    echo "make-dumps: $label/binoracle: failed on $exe" >&2
    rm -f "$sym.tmp"; status=1; return 0
  fi
  mv "$sym.tmp" "$sym"
  write_buildid "$go" "$exe" || status=1
  if [ -n "$runner" ]; then
    if ! timeout 300 "$runner" "$exe" "$exe.dump.tmp" "$exe.json.tmp"; then
      echo "make-dumps: $label/cross/$name: running it under $runner failed" >&2
      rm -f "$exe.dump.tmp" "$exe.json.tmp"; status=1; return 0
    fi
    mv "$exe.dump.tmp" "$exe.dump"
    mv "$exe.json.tmp" "$exe.json"
  fi
}

status=0
for label in go1.19 go1.24; do
  case $label in
    go1.19) go=$GO119 ;;
    go1.24) go=$GO124 ;;
  esac
  root=$(toolchain_root "$label" "$go") || { status=1; continue; }
  mkdir -p "$OUT/$label"
  for dir in "$HERE"/*/; do
    [ -f "$dir/main.go" ] || continue
    prog=$(basename "$dir")
    # Tools run over the executables, below.
    [ "$prog" = binoracle ] || [ "$prog" = dwarforacle ] && continue
    make_program "$label" "$go" "$root" "$dir" "$OUT/$label" || status=1
  done
  # The retention program as a position-independent executable, run: its
  # dump's addresses are the executable's plus a load bias goheap must find.
  make_program "$label" "$go" "$root" "$HERE/retention/" "$OUT/$label/pie" -buildmode=pie || status=1
  # The funcs program stripped of its symbol table and DWARF: names come from
  # the pclntab alone.
  make_program "$label" "$go" "$root" "$HERE/funcs/" "$OUT/$label/stripped" "-ldflags=-s -w" || status=1

  # The pclntab oracle: binoracle, built with this toolchain (Go 1.19's
  # debug/gosym cannot read the Go 1.20+ layout), prints what debug/gosym reads
  # from each executable into OUTDIR/<label>/<prog>.symtab.json.
  oracle="$OUT/$label/binoracle"
  oracle_src="$HERE/binoracle/main.go"
  if [ ! -x "$oracle" ] || [ "$oracle_src" -nt "$oracle" ] || [ "$SCRIPT" -nt "$oracle" ]; then
    echo "make-dumps: $label/binoracle: building"
    if ! (cd "$HERE/binoracle" && GOROOT=$root "$go" build -trimpath -buildvcs=false -o "$oracle.tmp" main.go); then
      echo "make-dumps: $label/binoracle: build failed" >&2
      rm -f "$oracle.tmp"; status=1; continue
    fi
    mv "$oracle.tmp" "$oracle"
  fi
  for exe in "$OUT/$label"/*; do
    [ -f "$exe.dump" ] || continue
    sym="$exe.symtab.json"
    if [ -s "$sym" ] && [ "$sym" -nt "$exe" ] && [ "$sym" -nt "$oracle" ]; then continue; fi
    if ! "$oracle" "$exe" >"$sym.tmp"; then
      echo "make-dumps: $label/binoracle: failed on $exe" >&2
      rm -f "$sym.tmp"; status=1; continue
    fi
    mv "$sym.tmp" "$sym"
    write_buildid "$go" "$exe" || status=1
  done

  # Cross-built executables (OUTDIR/<label>/cross/), so the readers are
  # checked on a big-endian target (s390x, PC quantum 2), a 32-bit one (arm,
  # quantum 4), and, with Go 1.19, on a PIE, a stripped file, PE and Mach-O.
  # The inlining and zoo programs are also run under qemu-user when that is
  # installed, for the runtime's own frames and for typed big-endian and
  # 32-bit heaps.
  mkdir -p "$OUT/$label/cross"
  cross_build "$label" retention retention-s390x "" GOARCH=s390x
  cross_build "$label" retention retention-arm "" GOARCH=arm GOARM=7
  cross_build "$label" inlining inlining-s390x qemu-s390x-static GOARCH=s390x
  cross_build "$label" inlining inlining-arm qemu-arm-static GOARCH=arm GOARM=7
  cross_build "$label" zoo zoo-s390x qemu-s390x-static GOARCH=s390x
  cross_build "$label" zoo zoo-arm qemu-arm-static GOARCH=arm GOARM=7
  if [ "$label" = go1.19 ]; then
    cross_build "$label" retention retention-pie "" GOARCH=amd64 -- -buildmode=pie
    cross_build "$label" retention retention-stripped "" GOARCH=amd64 -- "-ldflags=-s -w"
    cross_build "$label" retention retention-windows.exe "" GOOS=windows GOARCH=amd64
    cross_build "$label" retention retention-darwin "" GOOS=darwin GOARCH=amd64
  fi

  # The DWARF oracle: dwarforacle, built with this toolchain, prints what
  # debug/dwarf reads from each executable into EXE.dwarf.json (a file
  # without DWARF gets a JSON that says why).
  doracle="$OUT/$label/dwarforacle"
  doracle_src="$HERE/dwarforacle/main.go"
  if [ ! -x "$doracle" ] || [ "$doracle_src" -nt "$doracle" ] || [ "$SCRIPT" -nt "$doracle" ]; then
    echo "make-dumps: $label/dwarforacle: building"
    if ! (cd "$HERE/dwarforacle" && GOROOT=$root "$go" build -trimpath -buildvcs=false -o "$doracle.tmp" main.go); then
      echo "make-dumps: $label/dwarforacle: build failed" >&2
      rm -f "$doracle.tmp"; status=1; continue
    fi
    mv "$doracle.tmp" "$doracle"
  fi
  for exe in "$OUT/$label/retention" "$OUT/$label/pie/retention" "$OUT/$label/stripped/funcs" \
             "$OUT/$label"/cross/retention-*; do
    [ -f "$exe" ] || continue
    case "$exe" in *.json | *.buildid | *.dump | *.tmp) continue ;; esac
    dw="$exe.dwarf.json"
    if [ -s "$dw" ] && [ "$dw" -nt "$exe" ] && [ "$dw" -nt "$doracle" ]; then continue; fi
    if ! "$doracle" "$exe" >"$dw.tmp"; then
      echo "make-dumps: $label/dwarforacle: failed on $exe" >&2
      rm -f "$dw.tmp"; status=1; continue
    fi
    mv "$dw.tmp" "$dw"
  done
done

# --- Go 1.27 experiments (runtime layouts goheap reads) -----------------------
# The zoo program built with GOEXPERIMENT=nogreenteagc (spans without Green
# Tea's inline mark bits) into OUTDIR/go1.27/nogreentea/ and with
# GOEXPERIMENT=mapsplitgroup (map groups as {ctrl, keys, elems}) into
# OUTDIR/go1.27/mapsplitgroup/. Skipped, with a note, without Go 1.27: the
# tests that read them skip too.
GO127_EXP=${GOHEAP_GO127:-/opt/goheap/go1.27/usr/lib/go-1.27/bin/go}
if [ -x "$GO127_EXP" ] && root127=$(toolchain_root go1.27 "$GO127_EXP"); then
  GOEXPERIMENT=nogreenteagc make_program go1.27 "$GO127_EXP" "$root127" "$HERE/zoo/" \
    "$OUT/go1.27/nogreentea" || status=1
  GOEXPERIMENT=mapsplitgroup make_program go1.27 "$GO127_EXP" "$root127" "$HERE/zoo/" \
    "$OUT/go1.27/mapsplitgroup" || status=1
else
  echo "make-dumps: no Go 1.27 at $GO127_EXP: go1.27/{nogreentea,mapsplitgroup}/zoo skipped"
fi
# --- end of the Go 1.27 experiments -------------------------------------------

# Writes ORACLE's symbol table JSON of each existing EXE into $OUT/gobin,
# unless it is already newer than both.
oracle_over() {
  local oracle=$1; shift
  [ -x "$oracle" ] || return 0
  mkdir -p "$OUT/gobin"
  for exe in "$@"; do
    [ -f "$exe" ] || continue
    sym="$OUT/gobin/$(basename "$exe").symtab.json"
    if [ -s "$sym" ] && [ "$sym" -nt "$exe" ] && [ "$sym" -nt "$oracle" ]; then continue; fi
    if ! "$oracle" "$exe" >"$sym.tmp"; then
      echo "make-dumps: binoracle failed on $exe" >&2
      rm -f "$sym.tmp"; status=1; continue
    fi
    mv "$sym.tmp" "$sym"
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
