#!/usr/bin/env bash
# Builds goheap's release artefacts into dist/:
#   dist/goheap-VERSION-linux-amd64   one static executable, no debug info: runs
#                                     in an empty root (a scratch or
#                                     distroless container), where `goheap
#                                     snap` must run to reach a process there
#   dist/goheap-VERSION-linux-arm64   the same for arm64, cross-compiled with
#                                     Debian's g++-aarch64-linux-gnu and
#                                     checked under qemu-aarch64-static
#   dist/goheap_VERSION_amd64.deb     the dynamically linked build, packaged as
#                                     Debian packages a program
#                                     (scripts/make-deb.sh)
#   dist/SHA256SUMS
# VERSION is project(goheap VERSION ...) in CMakeLists.txt. Works on a tree
# without .git (goheap --version then says the commit is unknown); installs
# what it needs (scripts/install-deps.sh --release).
#   scripts/build-release.sh               everything above
#   scripts/build-release.sh --amd64-only  no arm64 binary
set -euo pipefail
cd "$(dirname "$0")/.."

arm64=1
case "${1:-}" in
  --amd64-only) arm64=0 ;;
  "") ;;
  *)
    echo "usage: scripts/build-release.sh [--amd64-only]" >&2
    exit 2
    ;;
esac

bash scripts/install-deps.sh --release
version=$(sed -n 's/^project(goheap VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
if [ -z "$version" ]; then
  echo "build-release: no project(goheap VERSION ...) in CMakeLists.txt" >&2
  exit 1
fi
jobs=$(nproc)
mkdir -p dist

# build DIR [CMAKE_ARGS...]: a Release build of goheap alone; users' flags,
# so a new compiler's warning does not stop a release.
build() {
  local dir=$1
  shift
  echo "build-release: building $dir"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGOHEAP_TESTS=OFF -DGOHEAP_BENCH=OFF \
    -DGOHEAP_WERROR=OFF "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
}

# static BUILD_DIR ARCH STRIP [CMAKE_ARGS...]
static() {
  local dir=$1 arch=$2 strip=$3
  shift 3
  build "$dir" -DGOHEAP_STATIC=ON "$@"
  local out=dist/goheap-$version-linux-$arch
  "$strip" -o "$out" "$dir/goheap"
  if ! file "$out" | grep -q "statically linked"; then
    echo "build-release: $out is not statically linked: $(file -b "$out")" >&2
    exit 1
  fi
  echo "build-release: $out ($(stat -c %s "$out") bytes)"
}

static build-dist/static-amd64 amd64 strip
if [ "$arm64" = 1 ]; then
  static build-dist/static-arm64 arm64 aarch64-linux-gnu-strip \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake"
  qemu-aarch64-static "dist/goheap-$version-linux-arm64" --version
fi

build build-dist/deb-amd64
bash scripts/make-deb.sh build-dist/deb-amd64 dist

(cd dist && sha256sum "goheap-$version-linux-"* "goheap_${version}_"*.deb >SHA256SUMS)
echo "build-release: done:"
ls -l dist
