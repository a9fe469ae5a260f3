#!/usr/bin/env bash
# The whole test suite from a fresh Debian machine: installs what it needs,
# builds with warnings as errors, writes real heap dumps with every Go release
# goheap is tested with (tests/programs/toolchains.sh), runs every test, then
# fuzzes the dump reader for a bounded time.
#   scripts/test.sh            everything
#   GOHEAP_FUZZ_SECONDS=0 ...  skip the fuzzing
#   GOHEAP_EXTRA_BUILDS=1 ...  also build goheap, its libraries and the
#                              benchmark (not the tests) with GCC at -O3
#                              (build-release/) and with clang
#                              (build-clang/), and the static goheap
#                              (build-static/, GOHEAP_STATIC: what
#                              scripts/build-release.sh ships for amd64),
#                              warnings as errors, and check the static one
#                              in an empty root (tests/release/
#                              static-check.sh); on by default in CI
#                              (CI=true)
# Two caches outside the checkout make a run on a machine that ran it before
# (CI's, in a new clone) faster; a new machine just runs slower, and removing
# them is always safe:
#   ~/.cache/ccache                every C++ compile (ccache, when installed;
#                                  CMakeLists.txt, GOHEAP_CCACHE);
#                                  `ccache -C` clears it
#   ~/.cache/goheap/test-dumps     the Go test programs' executables and
#                                  dumps, and the Go build cache
#                                  (tests/programs/dump-cache.sh;
#                                  GOHEAP_TEST_DUMP_CACHE=off turns it off);
#                                  rm -rf clears it
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

# ccache shares its objects between clones in other folders when it is told
# the checkout: it compiles with paths below it rewritten to relative ones
# (CMakeLists.txt keeps the absolute ones out of the debug info).
export CCACHE_BASEDIR="$PWD"

# ccache_counts: "HITS MISSES" of ccache so far (of every build on this
# machine; "0 0" without ccache).
ccache_counts() {
  if ! command -v ccache >/dev/null; then
    echo "0 0"
    return
  fi
  ccache --print-stats 2>/dev/null | awk '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" {
    h += $2 } $1 == "cache_miss" { m += $2 } END { print h + 0, m + 0 }'
}

# build_with DIR CC CXX BUILD_TYPE [CMAKE_ARGS...]: configures (once) and
# builds everything in DIR with warnings as errors.
build_with() {
  local dir=$1 cc=$2 cxx=$3 type=$4
  shift 4
  local before after
  echo "test.sh: building $dir ($cxx, $type, warnings as errors)"
  CC=$cc CXX=$cxx cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DGOHEAP_WERROR=ON \
    "$@" >/dev/null
  read -r -a before < <(ccache_counts)
  cmake --build "$dir" -j2
  read -r -a after < <(ccache_counts)
  echo "test.sh: $dir: $((after[0] - before[0])) compiles from ccache, $((after[1] - before[1])) compiled"
}

# Other compilers and optimisation levels warn about other things: a warning
# found there fails before the long test run. The tests are left out of these
# builds: they are most of the compile time, and CI must stay under 45 minutes.
extra=${GOHEAP_EXTRA_BUILDS:-${CI:-false}}
if [ "$extra" = 1 ] || [ "$extra" = true ]; then
  SECONDS=0
  build_with build-release gcc g++ Release -DGOHEAP_TESTS=OFF
  build_with build-clang clang clang++ RelWithDebInfo -DGOHEAP_TESTS=OFF
  # The same compiles as build-release's (ccache gives them back): only the
  # link differs.
  build_with build-static gcc g++ Release -DGOHEAP_STATIC=ON -DGOHEAP_TESTS=OFF -DGOHEAP_BENCH=OFF
  echo "test.sh: extra builds took ${SECONDS} s"
fi

# skip_summary LOG CTEST_OUTPUT: every test that did not run, and why. Each
# skipped test prints "GOHEAP-SKIP... NAME: why" (tests/support/test_main.cpp)
# into ctest's log; a test that did not run at all (a fixture failed) is only
# in ctest's own list.
skip_summary() {
  local log=$1 output=$2 reasons not_run
  reasons=$(grep -h -E '^GOHEAP-SKIP(PED|-FAILS) ' "$log" 2>/dev/null | sort -u || true)
  not_run=$(sed -n '/The following tests did not run:/,/^$/p' "$output" 2>/dev/null || true)
  [ -n "$reasons$not_run" ] || return 0
  local bar
  bar=$(printf '!%.0s' $(seq 78))
  echo
  echo "$bar"
  echo "test.sh: SKIPPED TESTS: what this run did not test, and why."
  echo "GOHEAP-SKIP-FAILS marks a skip that fails a CI run (tests/skip-allowlist.txt)."
  echo
  [ -z "$reasons" ] || echo "$reasons"
  [ -z "$not_run" ] || { echo; echo "ctest: $not_run"; }
  echo "$bar"
}

build_with build gcc g++ RelWithDebInfo -DGOHEAP_TESTS=ON
# The debug container's test (SnapContainer) runs the static goheap, as the
# release ships it, in its otherwise empty root.
if [ "$extra" = 1 ] || [ "$extra" = true ]; then
  export GOHEAP_STATIC_BINARY=$PWD/build-static/goheap
fi
ctest_status=0
(cd build && ctest --output-on-failure -j2) 2>&1 | tee build/ctest-output.txt ||
  ctest_status=${PIPESTATUS[0]}
skip_summary build/Testing/Temporary/LastTest.log build/ctest-output.txt
[ "$ctest_status" = 0 ] || exit "$ctest_status"
if [ "$extra" = 1 ] || [ "$extra" = true ]; then
  bash tests/release/static-check.sh build-static/goheap build/goheap
fi
seconds=${GOHEAP_FUZZ_SECONDS:-60}
if [ "$seconds" != 0 ] && [ -x fuzz/run.sh ]; then
  bash fuzz/run.sh "$seconds"
fi
