#!/usr/bin/env bash
# Builds the fuzzers into build-fuzz/ (clang, ASan, UBSan, libFuzzer) and runs
# them for SECONDS in all (default 60): half for dump_reader_fuzz, a quarter
# each for bin_reader_fuzz and typing_fuzz (the DWARF typing pass over the zoo
# test program's dump, mutated, when build/testdumps has it). New inputs go to
# build-fuzz/corpus/<fuzzer>; the seed corpora in fuzz/corpus are only read.
# Crashes are written to build-fuzz/artifacts/ and make this script fail.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
dump_seconds=$((seconds / 2))
bin_seconds=$((seconds / 4))
typing_seconds=$((seconds - dump_seconds - bin_seconds))
[ "$dump_seconds" -ge 1 ] || dump_seconds=1
[ "$bin_seconds" -ge 1 ] || bin_seconds=1
[ "$typing_seconds" -ge 1 ] || typing_seconds=1

if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja \
    -DGOHEAP_FUZZ=ON -DGOHEAP_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOHEAP_WERROR=ON
fi
ninja -C "$build" -j2 dump_reader_fuzz bin_reader_fuzz typing_fuzz

mkdir -p "$build/corpus/dump_reader" "$build/corpus/bin_reader" "$build/corpus/typing" \
  "$build/artifacts"
status=0
"$build/fuzz/dump_reader_fuzz" \
  -max_total_time="$dump_seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/dump_reader" "$root/fuzz/corpus/dump_reader" || status=1
"$build/fuzz/bin_reader_fuzz" \
  -max_total_time="$bin_seconds" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/bin_reader" "$root/fuzz/corpus/bin_reader" || status=1
zoo="$root/build/testdumps/go1.24/zoo"
if [ -f "$zoo.dump" ]; then
  mkdir -p "$build/corpus/typing_seed"
  cp "$zoo.dump" "$build/corpus/typing_seed/zoo.dump"
  GOHEAP_FUZZ_EXE="$zoo" "$build/fuzz/typing_fuzz" \
    -max_total_time="$typing_seconds" -max_len=400000 -rss_limit_mb=2048 -timeout=20 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
    "$build/corpus/typing" "$build/corpus/typing_seed" || status=1
else
  echo "fuzz/run.sh: $zoo.dump is missing (make-dumps.sh makes it): typing_fuzz skipped"
fi
exit $status
