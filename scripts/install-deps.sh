#!/usr/bin/env bash
# Installs everything goheap's build and tests need on a fresh Debian 12 machine:
# the C++ toolchain, zlib (compressed DWARF), Boost's headers (Beast and Asio,
# for goheap serve), Go 1.19 (Debian's golang-go), qemu-user-static for the
# 32-bit and big-endian test dumps, Go 1.24 from Debian trixie unpacked into
# its own folder (nothing is installed over the system), a JDK with VisualVM,
# whose heap library reads back the hprof export, Node.js and npm (the tests
# install memlab and playwright-core with them: scripts/install-npm-tools.sh),
# Graphviz (dot, for --to dot) and Chromium (the web UI's browser tests). Safe
# to run again.
set -euo pipefail

GO124_ROOT=${GOHEAP_GO124_DIR:-/opt/goheap/go1.24}
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

packages=(build-essential cmake ninja-build clang clang-format libclang-rt-14-dev
          libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev
          libboost-dev
          golang-go qemu-user-static python3 ca-certificates
          default-jdk-headless visualvm nodejs graphviz chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# npm: NodeSource's nodejs package brings its own and conflicts with
# Debian's npm package, which Debian's nodejs needs beside it.
if ! command -v npm >/dev/null; then
  echo "install-deps: installing npm"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends npm
fi

if [ ! -x "$GO124_ROOT/usr/lib/go-1.24/bin/go" ]; then
  echo "install-deps: fetching Go 1.24 from Debian trixie into $GO124_ROOT"
  work=$(mktemp -d)
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  mkdir -p "$work/lists/partial" "$work/debs"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" > "$work/trixie.list"
  opts=(-o Dir::Etc::SourceList="$work/trixie.list" -o Dir::Etc::SourceParts=-
        -o Dir::State::Lists="$work/lists" -o APT::Get::List-Cleanup=0)
  $SUDO apt-get "${opts[@]}" update -q
  (cd "$work/debs" && $SUDO apt-get "${opts[@]}" download golang-1.24-go golang-1.24-src)
  $SUDO mkdir -p "$GO124_ROOT"
  for deb in "$work"/debs/*.deb; do $SUDO dpkg -x "$deb" "$GO124_ROOT"; done
  rm -rf "$work"
fi
echo "install-deps: go1.19 $(go version | awk '{print $3}'), go1.24 at $GO124_ROOT/usr/lib/go-1.24"
