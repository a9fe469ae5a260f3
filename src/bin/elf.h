// The ELF file header and program headers, 32- and 64-bit, either byte
// order, for readers of ELF files that are not executables (core files:
// src/core/) as well as for readElf. Every table is checked to lie inside the
// file before it is read.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bin/bytes.h"
#include "util/error.h"

namespace goheap::bin {

constexpr uint16_t kElfTypeExec = 2;  // ET_EXEC
constexpr uint16_t kElfTypeDyn = 3;   // ET_DYN: a position-independent executable
constexpr uint16_t kElfTypeCore = 4;  // ET_CORE
constexpr uint32_t kPtLoad = 1;
constexpr uint32_t kPtNote = 4;
constexpr uint32_t kPfExecute = 1;
constexpr uint32_t kPfWrite = 2;
constexpr uint32_t kPfRead = 4;

struct ElfHeader {
  bool is64 = true;
  ByteView file;  // the whole file, in its byte order
  uint16_t type = 0;
  uint16_t machine = 0;
  uint64_t entry = 0;
  uint64_t phoff = 0, phentsize = 0;
  // e_phnum, or, when that is PN_XNUM (0xffff), section 0's sh_info.
  uint64_t phnum = 0;
  uint64_t shoff = 0, shentsize = 0, shnum = 0, shstrndx = 0;
};

struct ElfProgramHeader {
  uint64_t at = 0;  // file offset of the header itself, for errors
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0, align = 0;
};

// True when `bytes` start with the ELF magic.
bool isElf(std::span<const uint8_t> bytes);
// The file header; an Error naming the offset of a bad or truncated field.
Expected<ElfHeader> readElfHeader(std::span<const uint8_t> bytes);
// Every program header; an Error when the table runs past the end of the file.
Expected<std::vector<ElfProgramHeader>> readElfProgramHeaders(const ElfHeader& h);
// The GOARCH spelling of an e_machine ("amd64", "arm64", ...) or "unknown".
std::string elfGoArch(uint16_t machine, bool is64);

}  // namespace goheap::bin
