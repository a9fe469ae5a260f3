#!/usr/bin/env bash
# Installs what goheap needs on a fresh Debian 12 machine, in three sizes:
#   scripts/install-deps.sh --build    what building goheap needs, nothing
#                                      more (scripts/demo.sh): the C++
#                                      toolchain, CMake, Ninja, python3,
#                                      pkg-config, zlib (compressed DWARF),
#                                      Boost's headers (Beast and Asio, for
#                                      goheap serve), xxHash (the index cache's
#                                      checksums and keys), SQLite (goheap sql)
#                                      and Capstone (decodes a stripped
#                                      executable's code to type its globals)
#   scripts/install-deps.sh --release  that, and what scripts/build-release.sh
#                                      adds: the arm64 cross compiler, the
#                                      arm64 -dev libraries (dpkg's arm64
#                                      architecture is added) and lintian
#   scripts/install-deps.sh            everything the tests need
#                                      (scripts/test.sh): the build's, and
#                                      ccache (which keeps compiles for the
#                                      next build and clone), GoogleTest and
#                                      Google Benchmark, clang (a second
#                                      compiler, and libFuzzer), Go 1.19
#                                      (Debian's golang-go), qemu-user-static
#                                      for the 32-bit and big-endian test
#                                      dumps, Go 1.21 to 1.27 from Debian
#                                      trixie, trixie-backports, forky or
#                                      bookworm-backports, each unpacked into
#                                      its own folder (nothing is installed
#                                      over the system), a JDK with VisualVM,
#                                      whose heap library reads back the hprof
#                                      export, Node.js and npm (the tests
#                                      install memlab and playwright-core with
#                                      them: scripts/install-npm-tools.sh),
#                                      Graphviz (dot, for --to dot), Chromium
#                                      (the web UI's browser tests), binutils
#                                      (strip, which tests/bin strips test
#                                      executables with, and objcopy, which
#                                      tests/programs/split-debug.sh splits a
#                                      debug file off with), elfutils'
#                                      debuginfod (the server
#                                      tests/query/debug_file_test.cpp fetches
#                                      it from), file and lintian (the checks
#                                      of the static binary and the .deb).
# The tests also call setpriv, unshare, nsenter and timeout, from util-linux
# and coreutils, which every Debian system has (Essential: yes). Safe to run
# again.
set -euo pipefail

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

mode=tests
case "${1:-}" in
  --build) mode=build ;;
  --release) mode=release ;;
  "") ;;
  *)
    echo "usage: scripts/install-deps.sh [--build | --release]" >&2
    exit 2
    ;;
esac

build_packages=(build-essential cmake ninja-build pkg-config python3 zlib1g-dev libboost-dev
                libxxhash-dev libsqlite3-dev libcapstone-dev)
# The arm64 libraries are Multi-Arch: same, installed beside the amd64 ones.
release_packages=(g++-aarch64-linux-gnu lintian zlib1g-dev:arm64 libxxhash-dev:arm64
                  libsqlite3-dev:arm64 libcapstone-dev:arm64)
test_packages=(binutils ccache clang clang-format libclang-rt-14-dev
               libgtest-dev libgmock-dev libbenchmark-dev debuginfod
               golang-go qemu-user-static ca-certificates file lintian
               default-jdk-headless visualvm nodejs graphviz chromium prometheus)
packages=("${build_packages[@]}")
case "$mode" in
  release) packages+=("${release_packages[@]}") ;;
  tests) packages+=("${test_packages[@]}") ;;
esac

if [ "$mode" = release ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "install-deps: adding dpkg's arm64 architecture (for the arm64 -dev libraries)"
  $SUDO dpkg --add-architecture arm64
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
[ "$mode" = tests ] || exit 0
# npm: NodeSource's nodejs package brings its own and conflicts with
# Debian's npm package, which Debian's nodejs needs beside it.
if ! command -v npm >/dev/null; then
  echo "install-deps: installing npm"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends npm
fi

# Go 1.21 to 1.27, each unpacked from Debian's golang-1.2N-go and -src into
# its own folder, /opt/goheap/go1.2N (or GOHEAP_GO12N_DIR), with nothing
# installed over the system. Each is taken from the first suite that has it,
# any patch release: trixie, trixie-backports, forky, then bookworm-backports
# (1.21 to 1.23 are only there; the suites move on,
# so a release is looked for in all of them). The package lists of those
# suites are fetched once, into a temporary folder, only when a release is
# missing.
go_root() { # minor
  local var="GOHEAP_GO1${1}_DIR"
  echo "${!var:-/opt/goheap/go1.$1}"
}
go_suites=(trixie trixie-backports forky bookworm-backports)
apt_work=""
apt_opts=()
unpack_go() { # minor
  local minor=$1 root suite debs=() deb
  root=$(go_root "$minor")
  if "$root/usr/lib/go-1.$minor/bin/go" version 2>/dev/null | grep -q " go1\.${minor}[. ]"; then
    return 0
  fi
  if [ -z "$apt_work" ]; then
    apt_work=$(mktemp -d)
    trap '$SUDO rm -rf "$apt_work"' EXIT
    local mirror
    mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    mirror=${mirror:-http://deb.debian.org/debian}
    mkdir -p "$apt_work/lists/partial"
    for suite in "${go_suites[@]}"; do
      echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main"
    done >"$apt_work/go.list"
    apt_opts=(-o Dir::Etc::SourceList="$apt_work/go.list" -o Dir::Etc::SourceParts=-
              -o Dir::State::Lists="$apt_work/lists" -o APT::Get::List-Cleanup=0
              -o Acquire::Languages=none -o APT::Sandbox::User=root)
    echo "install-deps: fetching the package lists of Debian ${go_suites[*]}"
    $SUDO apt-get "${apt_opts[@]}" update -q
  fi
  for suite in "${go_suites[@]}"; do
    rm -rf "$apt_work/debs"
    mkdir -p "$apt_work/debs"
    if (cd "$apt_work/debs" &&
        $SUDO apt-get "${apt_opts[@]}" download -q "golang-1.$minor-go/$suite" "golang-1.$minor-src/$suite") \
        >>"$apt_work/download.log" 2>&1; then
      debs=("$apt_work"/debs/*.deb)
      break
    fi
  done
  if [ ${#debs[@]} -eq 0 ]; then
    cat "$apt_work/download.log" >&2
    echo "install-deps: could not download golang-1.$minor-go from any of Debian ${go_suites[*]}" >&2
    return 1
  fi
  echo "install-deps: unpacking $(cd "$apt_work/debs" && echo *.deb) from $suite into $root"
  # Unpacked beside the target and renamed into place, so an interrupted run
  # leaves no half toolchain that the check above would take for whole.
  $SUDO rm -rf "$root.partial"
  $SUDO mkdir -p "$root.partial"
  for deb in "${debs[@]}"; do $SUDO dpkg -x "$deb" "$root.partial"; done
  $SUDO rm -rf "$root"
  $SUDO mv "$root.partial" "$root"
}
versions="$(go version | awk '{print $3}') (golang-go)"
for minor in 21 22 23 24 25 26 27; do
  unpack_go "$minor"
  versions+=", $("$(go_root "$minor")/usr/lib/go-1.$minor/bin/go" version | awk '{print $3}') at $(go_root "$minor")"
done
echo "install-deps: $versions"
