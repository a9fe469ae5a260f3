#!/usr/bin/env bash
# One command from a fresh Debian machine to goheap's main job: installs what
# the build needs, builds, and summarises the sample dump in examples/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target goheap -j2
# With the executable that wrote it, so the first screen shows Go types.
./build/goheap summary examples/leaky.dump examples/leaky-linux-amd64
