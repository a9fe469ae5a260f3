#!/usr/bin/env bash
# deb-check.sh BUILD_DIR: the .deb scripts/make-deb.sh makes of BUILD_DIR's
# goheap (a ctest test, over the test build). lintian finds no error in it
# (make-deb.sh runs it); unpacked with dpkg-deb -x, its goheap runs and reads
# the sample dump; the man page and the bash completion are where Debian
# looks for them, and the completion completes commands and flag values;
# Depends names the libraries the binary links (dpkg-shlibdeps).
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: tests/release/deb-check.sh BUILD_DIR" >&2
  exit 2
fi
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
fail() {
  echo "deb-check: FAILED: $*" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

deb=$(bash "$source_dir/scripts/make-deb.sh" "$1" "$work/out" | tail -n 1)
[ -f "$deb" ] || fail "make-deb.sh made no .deb"
echo "deb-check: $(basename "$deb"), $(stat -c %s "$deb") bytes, lintian: no error"

depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libstdc++6 libsqlite3-0 libcapstone4 libxxhash0 zlib1g; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done

dpkg-deb -x "$deb" "$work/root"
goheap=$work/root/usr/bin/goheap
"$goheap" --version | grep -q "^goheap " || fail "the packaged goheap does not run"
"$goheap" summary --no-cache "$source_dir/examples/leaky.dump" "$source_dir/examples/leaky-linux-amd64" \
  >"$work/summary.txt" || fail "the packaged goheap cannot summarise the sample dump"
file -b "$goheap" | grep -q "stripped" || fail "the packaged goheap is not stripped"

man_page=$work/root/usr/share/man/man1/goheap.1.gz
[ -f "$man_page" ] || fail "no man page at /usr/share/man/man1/goheap.1.gz"
# Read whole first: grep -q would close the pipe early, and pipefail
# would take zcat's SIGPIPE for a failure.
man_text=$(zcat "$man_page")
grep -q '^\.SH "GOHEAP SUMMARY"' <<<"$man_text" || fail "the man page has no section for goheap summary"
grep -q '^\.SH "GOHEAP SNAP"' <<<"$man_text" || fail "the man page has no section for goheap snap"
for doc in copyright changelog.gz; do
  [ -f "$work/root/usr/share/doc/goheap/$doc" ] || fail "no /usr/share/doc/goheap/$doc"
done

completion=$work/root/usr/share/bash-completion/completions/goheap
[ -f "$completion" ] || fail "no bash completion at /usr/share/bash-completion/completions/goheap"
# complete WORDS...: what the completion offers for the last word.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _goheap; echo "${COMPREPLY[*]}"' \
    _ "$completion" "$@"
}
[ "$(complete_words goheap sum)" = summary ] || fail "goheap sum<TAB> gave '$(complete_words goheap sum)'"
[[ " $(complete_words goheap top --by "") " == *" site "* ]] ||
  fail "goheap top --by <TAB> gave '$(complete_words goheap top --by "")'"
[[ " $(complete_words goheap snap --no-) " == *" --no-fork "* ]] ||
  fail "goheap snap --no-<TAB> gave '$(complete_words goheap snap --no-)'"
echo "deb-check: passed"
