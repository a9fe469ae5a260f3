# Sourced by make-dumps.sh and tests/fixtures/regenerate.sh: which Go
# toolchains the test programs are built with, and where they are.
#
# Labels: go1.19 is Debian 12's golang-go (/usr/bin/go, or GOHEAP_GO119);
# go1.21 to go1.27 are unpacked by scripts/install-deps.sh into
# /opt/goheap/go1.2N (or GOHEAP_GO12N_DIR), or given as GOHEAP_GO12N, the
# path of their go binary. Adding a release here, in install-deps.sh and in
# tests/support/go_versions.h is all a new Go needs.
# shellcheck shell=bash

# shellcheck disable=SC2034 # read by the scripts that source this one
GOHEAP_ALL_GO_LABELS=(go1.19 go1.21 go1.22 go1.23 go1.24 go1.25 go1.26 go1.27)

# Prints the go binary of LABEL ("go1.26").
go_binary() { # label
  local label=$1 minor=${1#go1.}
  local var="GOHEAP_GO1$minor" dir_var="GOHEAP_GO1${minor}_DIR"
  if [ "$label" = go1.19 ]; then
    echo "${GOHEAP_GO119:-/usr/bin/go}"
  else
    echo "${!var:-${!dir_var:-/opt/goheap/$label}/usr/lib/go-1.$minor/bin/go}"
  fi
}

# Checks that GO runs and is release LABEL, prints its GOROOT.
toolchain_root() { # label go-binary
  local label=$1 go=$2 version
  if [ ! -x "$go" ]; then
    echo "${0##*/}: $label toolchain not found at $go (run scripts/install-deps.sh, or set GOHEAP_GO1${label#go1.})" >&2
    return 1
  fi
  if ! version=$("$go" env GOVERSION 2>&1); then
    echo "${0##*/}: $go does not run: $version" >&2
    return 1
  fi
  case "$version" in
    "$label" | "$label".* | "$label"rc*) ;;
    *)
      echo "${0##*/}: $go is $version, expected $label" >&2
      return 1
      ;;
  esac
  "$go" env GOROOT
}

# A clean, self-contained Go environment: HOME may be unset in CI, and nothing
# from the caller's environment may change how the programs are built.
go_clean_environment() {
  unset GOROOT GOOS GOARCH GOARM GO386 GOAMD64 GOFLAGS GO111MODULE GOEXPERIMENT GOWORK GODEBUG \
    GOGC GOMEMLIMIT GOMAXPROCS GOTRACEBACK
  export GOENV=off GOTOOLCHAIN=local CGO_ENABLED=0 GOPROXY=off GOTELEMETRY=off
}

# Prints the folder of the test caches kept outside the build folders, so
# that a new clone on the same machine reuses them: make-dumps.sh's test
# dumps (dump-cache.sh) and the Go build cache (go-build/ in it), which
# capture/test.sh uses too. GOHEAP_TEST_DUMP_CACHE, else
# $XDG_CACHE_HOME/goheap/test-dumps, else ~/.cache/goheap/test-dumps;
# nothing when GOHEAP_TEST_DUMP_CACHE is empty or "off", or no home is known.
test_cache_dir() {
  if [ -n "${GOHEAP_TEST_DUMP_CACHE+set}" ]; then
    [ "$GOHEAP_TEST_DUMP_CACHE" = off ] || echo "$GOHEAP_TEST_DUMP_CACHE"
    return 0
  fi
  # A relative XDG_CACHE_HOME is ignored, as the XDG spec says.
  case "${XDG_CACHE_HOME:-}" in
    /*) echo "$XDG_CACHE_HOME/goheap/test-dumps" ;;
    *) if [ -n "${HOME:-}" ]; then echo "$HOME/.cache/goheap/test-dumps"; fi ;;
  esac
}
