#!/usr/bin/env bash
# Builds the fuzzers into build-fuzz/ (clang, ASan, UBSan, libFuzzer) and runs
# dump_reader_fuzz for SECONDS (default 60). New inputs go to
# build-fuzz/corpus/dump_reader; the seed corpus in fuzz/corpus is only read.
# Crashes are written to build-fuzz/artifacts/ and make this script fail.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"

if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja \
    -DGOHEAP_FUZZ=ON -DGOHEAP_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
ninja -C "$build" -j2 dump_reader_fuzz

mkdir -p "$build/corpus/dump_reader" "$build/artifacts"
exec "$build/fuzz/dump_reader_fuzz" \
  -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/dump_reader" "$root/fuzz/corpus/dump_reader"
