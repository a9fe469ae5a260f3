#!/usr/bin/env bash
# Builds the fuzzers into build-fuzz/ (clang, ASan, UBSan, libFuzzer) and runs
# them for SECONDS in all (default 60): a fifth for dump_reader_fuzz, a tenth
# for index_file_fuzz (the index cache's files, seeded with
# fuzz/corpus/index_file),
# three twentieths each for bin_reader_fuzz and core_reader_fuzz (core files,
# seeded with fuzz/corpus/core_reader), a twentieth for restore_fuzz (the
# dominator tree, children and retained sizes a cache hit trusts, edited, over
# Go 1.24's zoo), three twentieths for core_model_fuzz (cores
# read into the dump model with Go 1.24's coreprog, seeded with small cores
# make_core_model_corpus writes from its DWARF, when build/testdumps has it),
# a tenth for sql_fuzz (goheap sql's tables given arbitrary SQL over
# examples/leaky.dump, seeded with docs/sql.md's cookbook), a twentieth for
# json_reader_fuzz (the JSON reader, seeded with fuzz/corpus/json_reader)
# and as much for mcp_message_fuzz (the MCP server's messages),
# the rest for
# typing_fuzz (the DWARF typing pass over the zoo
# test program's dumps, mutated, when build/testdumps has them: Go 1.24's,
# and Go 1.27's with and without GOEXPERIMENT=mapsplitgroup). New inputs go to
# build-fuzz/corpus/<fuzzer>; the seed corpora in fuzz/corpus are only read.
# Crashes are written to build-fuzz/artifacts/ and make this script fail.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
dump_seconds=$((seconds / 5))
index_seconds=$((seconds / 10))
bin_seconds=$((seconds * 3 / 20))
core_seconds=$((seconds * 3 / 20))
model_seconds=$((seconds * 3 / 20))
restore_seconds=$((seconds / 20))
sql_seconds=$((seconds / 10))
json_seconds=$((seconds / 20))
typing_seconds=$((seconds - dump_seconds - index_seconds - bin_seconds - core_seconds - model_seconds - restore_seconds - sql_seconds - json_seconds))
[ "$dump_seconds" -ge 1 ] || dump_seconds=1
[ "$index_seconds" -ge 1 ] || index_seconds=1
[ "$bin_seconds" -ge 1 ] || bin_seconds=1
[ "$core_seconds" -ge 1 ] || core_seconds=1
[ "$model_seconds" -ge 1 ] || model_seconds=1
[ "$restore_seconds" -ge 1 ] || restore_seconds=1
[ "$sql_seconds" -ge 1 ] || sql_seconds=1
[ "$json_seconds" -ge 1 ] || json_seconds=1
[ "$typing_seconds" -ge 1 ] || typing_seconds=1

if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja \
    -DGOHEAP_FUZZ=ON -DGOHEAP_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOHEAP_WERROR=ON
fi
ninja -C "$build" -j2 dump_reader_fuzz index_file_fuzz bin_reader_fuzz core_reader_fuzz \
  core_model_fuzz make_core_model_corpus typing_fuzz sql_fuzz restore_fuzz json_reader_fuzz \
  mcp_message_fuzz

mkdir -p "$build/corpus/dump_reader" "$build/corpus/index_file" "$build/corpus/bin_reader" \
  "$build/corpus/core_reader" "$build/corpus/typing" "$build/artifacts"
status=0
failed=()
# fuzzer_failed NAME CODE: remembered, so that the last lines of a long log
# (all a CI summary may show) say which fuzzer failed and where its input is.
fuzzer_failed() {
  status=1
  failed+=("$1 (exit $2)")
}
"$build/fuzz/dump_reader_fuzz" \
  -max_total_time="$dump_seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/dump_reader" "$root/fuzz/corpus/dump_reader" || fuzzer_failed dump_reader_fuzz $?
"$build/fuzz/index_file_fuzz" \
  -max_total_time="$index_seconds" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/index_file" "$root/fuzz/corpus/index_file" || fuzzer_failed index_file_fuzz $?
"$build/fuzz/bin_reader_fuzz" \
  -max_total_time="$bin_seconds" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/bin_reader" "$root/fuzz/corpus/bin_reader" || fuzzer_failed bin_reader_fuzz $?
"$build/fuzz/core_reader_fuzz" \
  -max_total_time="$core_seconds" -max_len=16384 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/core_reader" "$root/fuzz/corpus/core_reader" || fuzzer_failed core_reader_fuzz $?
# The core model over Go 1.24's coreprog: its seeds hold the addresses of
# that build's runtime, so they are written afresh from it; fuzz/corpus/
# core_model keeps inputs that once failed (with that build's addresses).
coreprog="$root/build/testdumps/go1.24/coreprog"
if [ -f "$coreprog" ]; then
  seed="$build/corpus/core_model_seed"
  mkdir -p "$seed" "$build/corpus/core_model"
  "$build/fuzz/make_core_model_corpus" "$coreprog" "$seed"
  GOHEAP_FUZZ_EXE="$coreprog" "$build/fuzz/core_model_fuzz" \
    -max_total_time="$model_seconds" -max_len=131072 -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
    "$build/corpus/core_model" "$seed" "$root/fuzz/corpus/core_model" || fuzzer_failed core_model_fuzz $?
else
  echo "fuzz/run.sh: build/testdumps/go1.24/coreprog is missing (make-dumps.sh makes it): skipped"
fi
# The checks of a cache hit, over Go 1.24's zoo (its dump and executable).
restore_zoo="$root/build/testdumps/go1.24/zoo"
if [ -f "$restore_zoo.dump" ]; then
  mkdir -p "$build/corpus/restore"
  GOHEAP_FUZZ_EXE="$restore_zoo" "$build/fuzz/restore_fuzz" \
    -max_total_time="$restore_seconds" -max_len=384 -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
    "$build/corpus/restore" || fuzzer_failed restore_fuzz $?
else
  echo "fuzz/run.sh: $restore_zoo.dump is missing (make-dumps.sh makes it): skipped"
fi
# goheap sql, seeded with the cookbook's queries (one file each).
sql_seed="$build/corpus/sql_seed"
rm -rf "$sql_seed"
mkdir -p "$sql_seed" "$build/corpus/sql"
awk -v dir="$sql_seed" '/^```sql$/ { n++; inside = 1; next } /^```$/ { inside = 0; next }
  inside { print > (dir "/cookbook-" n ".sql") }' "$root/docs/sql.md"
"$build/fuzz/sql_fuzz" \
  -max_total_time="$sql_seconds" -max_len=2048 -rss_limit_mb=2048 -timeout=10 \
  -dict="$root/fuzz/sql.dict" -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/sql" "$sql_seed" || fuzzer_failed sql_fuzz $?
# The JSON reader, seeded with a few documents (fuzz/corpus/json_reader).
mkdir -p "$build/corpus/json_reader"
"$build/fuzz/json_reader_fuzz" \
  -max_total_time="$json_seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/json_reader" "$root/fuzz/corpus/json_reader" || fuzzer_failed json_reader_fuzz $?
# The MCP server's messages, seeded with a few requests (fuzz/corpus/mcp_message).
mkdir -p "$build/corpus/mcp_message"
"$build/fuzz/mcp_message_fuzz" \
  -max_total_time="$json_seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus/mcp_message" "$root/fuzz/corpus/mcp_message" || fuzzer_failed mcp_message_fuzz $?
# The typing pass over the zoo of Go 1.24 and, when make-dumps.sh wrote
# them, of Go 1.27 (TFlag's direct-interface bit, span metadata) and Go 1.27
# with GOEXPERIMENT=mapsplitgroup (split map groups), sharing the time.
zoos=()
for z in go1.24/zoo go1.27/zoo go1.27/mapsplitgroup/zoo; do
  if [ -f "$root/build/testdumps/$z.dump" ]; then
    zoos+=("$z")
  else
    echo "fuzz/run.sh: build/testdumps/$z.dump is missing (make-dumps.sh makes it): skipped"
  fi
done
for z in "${zoos[@]}"; do
  zoo="$root/build/testdumps/$z"
  seconds_each=$((typing_seconds / ${#zoos[@]}))
  [ "$seconds_each" -ge 1 ] || seconds_each=1
  seed="$build/corpus/typing_seed/${z//\//_}"
  mkdir -p "$seed" "$build/corpus/typing/${z//\//_}"
  cp "$zoo.dump" "$seed/zoo.dump"
  GOHEAP_FUZZ_EXE="$zoo" "$build/fuzz/typing_fuzz" \
    -max_total_time="$seconds_each" -max_len=400000 -rss_limit_mb=2048 -timeout=20 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
    "$build/corpus/typing/${z//\//_}" "$seed" || fuzzer_failed "typing_fuzz on $z" $?
done
if [ $status != 0 ]; then
  echo "fuzz/run.sh: FAILED: ${failed[*]}"
  echo "fuzz/run.sh: the inputs that failed are in $build/artifacts/:"
  ls -l "$build/artifacts/" || true
  # A CI machine's files are gone after the run: a small input is printed
  # here so it can be brought back with base64 -d and replayed.
  for f in "$build"/artifacts/*; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 4096 ] || continue
    echo "fuzz/run.sh: $(basename "$f") as base64: $(base64 -w0 "$f")"
  done
fi
exit $status
