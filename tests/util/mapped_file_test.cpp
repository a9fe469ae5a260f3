// A mapped dump or executable that changes on disk while goheap reads it:
// truncation must not kill the process (SIGBUS), and checkUnchanged() must
// notice every kind of change, including a rewrite to the same length.
#include "util/mapped_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/goheap_process.h"

namespace goheap {
namespace {

using testing::scratch;

std::string writeFile(const std::string& name, size_t size, char fill) {
  const std::string path = scratch().file(name);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const std::vector<char> bytes(size, fill);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

// Moves the file's modification time by a second, as a rewrite a moment
// later would, without relying on the clock's granularity.
void touchOneSecondLater(const std::string& path) {
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  times[1].tv_sec += 1;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(MappedFile, UnchangedFileIsTrusted) {
  const std::string path = writeFile("unchanged", 10000, 'a');
  auto file = MappedFile::open(path);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_TRUE(file->checkUnchanged().ok());
  EXPECT_EQ(file->identity().size, 10000u);
}

TEST(MappedFile, TruncationWhileMappedReadsZerosInsteadOfKillingTheProcess) {
  const long page = ::sysconf(_SC_PAGESIZE);
  const std::string path = writeFile("truncated", static_cast<size_t>(page) * 4, 'x');
  auto file = MappedFile::open(path);
  ASSERT_TRUE(file);
  ASSERT_EQ(file->data()[0], 'x');
  ASSERT_EQ(::truncate(path.c_str(), page), 0);
  // Past the new end: SIGBUS without the guard.
  const volatile uint8_t* past_end = file->data() + 3 * page + 10;
  EXPECT_EQ(*past_end, 0);
  // The whole mapping is zeros from then on, so nothing mixes old and new.
  EXPECT_EQ(file->data()[0], 0);
  Status s = file->checkUnchanged();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("truncated while goheap was reading it"), std::string::npos)
      << s.error().message();
  EXPECT_NE(s.error().message().find(path), std::string::npos);
}

TEST(MappedFile, TruncationNoticedBeforeAnyReadFaults) {
  const std::string path = writeFile("shrunk", 8192, 'x');
  auto file = MappedFile::open(path);
  ASSERT_TRUE(file);
  ASSERT_EQ(::truncate(path.c_str(), 100), 0);
  Status s = file->checkUnchanged();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("changed size"), std::string::npos) << s.error().message();
}

TEST(MappedFile, SameLengthRewriteIsNoticed) {
  const std::string path = writeFile("rewritten", 5000, 'a');
  auto file = MappedFile::open(path);
  ASSERT_TRUE(file);
  {
    // In place, as a program that reopens its dump without O_TRUNC would.
    const int fd = ::open(path.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    const std::vector<char> other(5000, 'b');
    ASSERT_EQ(::write(fd, other.data(), other.size()), 5000);
    ::close(fd);
  }
  touchOneSecondLater(path);
  Status s = file->checkUnchanged();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("rewritten"), std::string::npos) << s.error().message();
}

TEST(MappedFile, ReplacedOrRemovedFileIsNoticed) {
  const std::string path = writeFile("replaced", 5000, 'a');
  auto file = MappedFile::open(path);
  ASSERT_TRUE(file);
  const std::string other = writeFile("replacement", 5000, 'a');
  ASSERT_EQ(std::rename(other.c_str(), path.c_str()), 0);
  EXPECT_FALSE(file->checkUnchanged().ok());
  ASSERT_EQ(std::remove(path.c_str()), 0);
  Status gone = file->checkUnchanged();
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.error().message().find("gone"), std::string::npos);
}

TEST(MappedFile, FifoIsRefusedWithoutBlocking) {
  const std::string path = scratch().file("pipe");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  auto file = MappedFile::open(path);  // no writer: a blocking open would never return
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message().find("FIFO"), std::string::npos) << file.error().message();
  EXPECT_NE(file.error().message().find("not a regular file"), std::string::npos);
}

TEST(MappedFile, DirectoryIsRefusedByKind) {
  auto file = MappedFile::open(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message().find("a directory"), std::string::npos)
      << file.error().message();
}

TEST(MappedFile, BorrowedMemoryIsAlwaysTrusted) {
  const uint8_t bytes[4] = {1, 2, 3, 4};
  MappedFile file = MappedFile::borrow(bytes);
  EXPECT_TRUE(file.checkUnchanged().ok());
}

}  // namespace
}  // namespace goheap
