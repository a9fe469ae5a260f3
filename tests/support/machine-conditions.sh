#!/usr/bin/env bash
# The machine settings the kernel-core and snap tests need, made for the
# length of a ctest run and put back after it (ctest's machine_conditions_setup
# fixture, tests/CMakeLists.txt), when run as root with a writable /proc/sys:
#   kernel.core_pattern  "core", so that the kernel writes a crashing test
#                        program's core into its working directory (hosts
#                        with apport or systemd-coredump pipe it away);
#   kernel.yama.ptrace_scope  0 when it is 1 or 2 and this process lacks
#                        CAP_SYS_PTRACE, so that goheap snap may attach to a
#                        process the test started (3 cannot be lowered).
# The core size limit is not set here: a limit belongs to a process, so the
# test raises its own (tests/support/kernel_core.cpp).
#   machine-conditions.sh setup STATE_DIR    saves what it changes in STATE_DIR
#   machine-conditions.sh cleanup STATE_DIR  restores it
# Where a setting cannot be made (not root, /proc/sys read-only), it says so
# and exits 0: the tests then skip naming the condition, and a CI run fails
# unless tests/skip-allowlist.txt allows that condition.
set -euo pipefail
action=${1:?usage: machine-conditions.sh setup|cleanup STATE_DIR}
state=${2:?usage: machine-conditions.sh setup|cleanup STATE_DIR}
core_pattern=/proc/sys/kernel/core_pattern
ptrace_scope=/proc/sys/kernel/yama/ptrace_scope

say() { echo "machine-conditions: $*"; }

# Whether the kernel writes cores named core* into the working directory,
# as tests/support/kernel_core.cpp (corePatternProblem) requires.
pattern_is_local() {
  case "$1" in
    core*/* | /* | "|"*) return 1 ;;
    core*) return 0 ;;
    *) return 1 ;;
  esac
}

has_cap_sys_ptrace() {
  local caps
  caps=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
  (((0x$caps >> 19) & 1))
}

# set_sysctl FILE VALUE NAME: saves FILE's value as STATE/NAME.saved (unless
# a run that never cleaned up saved it already) and writes VALUE.
set_sysctl() {
  local file=$1 value=$2 name=$3
  if [ "$(id -u)" != 0 ] || ! (: >>"$file") 2>/dev/null; then
    say "cannot set $file to '$value' (not root, or /proc/sys is read-only); the tests that need it skip"
    return 0
  fi
  mkdir -p "$state"
  [ -e "$state/$name.saved" ] || cat "$file" >"$state/$name.saved"
  echo "$value" >"$file"
  say "$file was '$(cat "$state/$name.saved")', is '$value' until the cleanup"
}

# restore_sysctl FILE EXPECTED NAME: puts back the saved value, unless
# someone changed FILE from what setup wrote in the meantime.
restore_sysctl() {
  local file=$1 expected=$2 name=$3 saved
  [ -e "$state/$name.saved" ] || return 0
  saved=$(cat "$state/$name.saved")
  if [ "$(cat "$file")" = "$expected" ]; then
    echo "$saved" >"$file"
    say "$file restored to '$saved'"
  else
    say "$file was changed during the run to '$(cat "$file")'; left as it is (it was '$saved')"
  fi
  rm -f "$state/$name.saved"
}

case "$action" in
  setup)
    pattern=$(cat "$core_pattern")
    if pattern_is_local "$pattern"; then
      say "core_pattern is '$pattern': cores land in the working directory"
    else
      set_sysctl "$core_pattern" core core_pattern
    fi
    if [ -e "$ptrace_scope" ]; then
      scope=$(cat "$ptrace_scope")
      if { [ "$scope" = 1 ] || [ "$scope" = 2 ]; } && ! has_cap_sys_ptrace; then
        set_sysctl "$ptrace_scope" 0 ptrace_scope
      fi
    fi
    ;;
  cleanup)
    restore_sysctl "$core_pattern" core core_pattern
    restore_sysctl "$ptrace_scope" 0 ptrace_scope
    ;;
  *)
    echo "usage: machine-conditions.sh setup|cleanup STATE_DIR" >&2
    exit 2
    ;;
esac
