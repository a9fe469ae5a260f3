#!/usr/bin/env bash
# make-deb.sh BUILD_DIR OUT_DIR: packages the goheap built in BUILD_DIR (a
# dynamically linked build, with its man page and completion: CMakeLists.txt's
# goheap_docs) as OUT_DIR/goheap_VERSION_ARCH.deb, the way Debian packages a
# program: the files `cmake --install --prefix /usr --strip` installs
# (/usr/bin/goheap, its man page, bash completion, copyright and changelog),
# Depends computed by dpkg-shlibdeps from the libraries the binary links, and
# lintian run over the result (an error fails). Prints the .deb's path last.
# Used by scripts/build-release.sh and the .deb's test (tests/release/).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: scripts/make-deb.sh BUILD_DIR OUT_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
source_dir=$(cd "$(dirname "$0")/.." && pwd)

version=$(sed -n 's/^project(goheap VERSION \([0-9][0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Staged where dpkg-shlibdeps expects a package's files: debian/PACKAGE.
stage=$work/src/debian/goheap

if [ ! -x "$build/goheap" ] || [ ! -f "$build/goheap.1.gz" ]; then
  echo "make-deb: build goheap first: cmake --build $1 (its default target, with the man page)" >&2
  exit 1
fi
DESTDIR=$stage cmake --install "$build" --prefix /usr --strip >/dev/null
# Files as a package holds them, whatever the umask was.
find "$stage" -type d -exec chmod 0755 {} +
find "$stage" -type f -exec chmod 0644 {} +
chmod 0755 "$stage/usr/bin/goheap"

# dpkg-shlibdeps reads the package's name from a debian/control in the
# folder it runs in; a minimal one is enough.
mkdir -p "$work/src/debian"
printf 'Source: goheap\n\nPackage: goheap\nArchitecture: any\n' >"$work/src/debian/control"
# (It warns that the binary is not installed in the package's folder, which
# it is not on this machine: a staged package's always.)
depends=$(cd "$work/src" && dpkg-shlibdeps -O debian/goheap/usr/bin/goheap 2>&1 |
  grep -v "should already be installed in their package" | sed -n 's/^shlibs:Depends=//p')

mkdir -p "$stage/DEBIAN"
(cd "$stage" && find usr -type f -exec md5sum {} + | sort -k2) >"$stage/DEBIAN/md5sums"
cat >"$stage/DEBIAN/control" <<EOF
Package: goheap
Version: $version
Architecture: $arch
Maintainer: goheap developers <dev@goheap.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Section: devel
Priority: optional
Description: what holds a Go program's memory, and why
 goheap reads the heap of a Go program, from a heap dump
 (runtime/debug.WriteHeapDump), an ELF core file or a running process
 (goheap snap), with the program's executable, stripped or not, of Go 1.19
 and later. It answers what uses the memory and why it is still alive:
 histograms by type or allocation site, dominators and retained sizes, paths
 from the roots, goroutines and the ones leaked forever, the whole process's
 memory, diffs between two heaps, leak suspects, duplicates, waste and SQL.
 It exports hprof, pprof, Chrome and Graphviz, serves a web UI and answers AI
 assistants over MCP.
EOF

deb=$out/goheap_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
# lintian refuses to run as root without being told it may.
lintian_args=(--fail-on error)
[ "$(id -u)" != 0 ] || lintian_args+=(--allow-root)
lintian "${lintian_args[@]}" "$deb" >&2
echo "$deb"
