#!/usr/bin/env bash
# One command from a fresh Debian machine to goheap's main job: installs only
# what building goheap needs (scripts/install-deps.sh --build: no test
# toolchains), builds goheap alone (no tests, no benchmark), and summarises
# the sample dump in examples/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --build
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOHEAP_TESTS=OFF \
  -DGOHEAP_BENCH=OFF >/dev/null
cmake --build build --target goheap -j"$(nproc)"
# With the executable that wrote it, so the first screen shows Go types.
./build/goheap summary examples/leaky.dump examples/leaky-linux-amd64
