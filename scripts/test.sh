#!/usr/bin/env bash
# The whole test suite from a fresh Debian machine: installs what it needs,
# builds with warnings as errors, writes real heap dumps with Go 1.19 and
# Go 1.24, runs every test, then fuzzes the dump reader for a bounded time.
#   scripts/test.sh            everything
#   GOHEAP_FUZZ_SECONDS=0 ...  skip the fuzzing
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2
(cd build && ctest --output-on-failure -j2)
seconds=${GOHEAP_FUZZ_SECONDS:-60}
if [ "$seconds" != 0 ] && [ -x fuzz/run.sh ]; then
  bash fuzz/run.sh "$seconds"
fi
