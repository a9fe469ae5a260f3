// The machine goheap runs on, which is the machine of every process it
// snaps, as the ELF header of a core (e_machine) and seccomp's filters
// (seccomp_data.arch, the audit subsystem's numbering) name it; 0 on a
// machine snap does not support.
#pragma once

#include <elf.h>
#include <linux/audit.h>

#include <cstdint>

namespace goheap::acquire {

#if defined(__x86_64__)
inline constexpr uint16_t kElfMachine = EM_X86_64;
inline constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
inline constexpr uint16_t kElfMachine = EM_AARCH64;
inline constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
inline constexpr uint16_t kElfMachine = 0;
inline constexpr uint32_t kAuditArch = 0;
#endif

}  // namespace goheap::acquire
