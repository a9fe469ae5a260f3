// The cache key changes with every input that changes what goheap would
// compute (the heap file, the executable, the options, the format version)
// and with nothing else; and the description reads back as written.
#include "cache/cache_key.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "bin/binary.h"
#include "cache/entry_description.h"
#include "support/goheap_process.h"

namespace goheap {
namespace {

using cache::computeKey;
using cache::KeyInputs;

KeyInputs sampleInputs() {
  KeyInputs in;
  in.heap.identity.size = 1234;
  in.heap.identity.mtime_ns = 1700000000123456789;
  in.heap.identity.device = 66;
  in.heap.identity.inode = 4242;
  in.heap.head_tail_hash = 0xabcdef;
  in.executable = cache::ExecutableFingerprint{};
  in.executable->build_id = "build-id-1";
  in.executable->size = 5000000;
  in.executable->content_hash = 0x1234;
  return in;
}

TEST(CacheKey, HexRoundTrips) {
  const cache::Key key = computeKey(sampleInputs());
  const std::string hex = key.hex();
  EXPECT_EQ(hex.size(), 64u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(cache::Key::fromHex(hex), key);
  EXPECT_FALSE(cache::Key::fromHex(hex.substr(1)));
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  if (upper != hex) {
    EXPECT_FALSE(cache::Key::fromHex(upper));
  }
  EXPECT_FALSE(cache::Key::fromHex(std::string(63, '0') + "g"));
}

TEST(CacheKey, SameInputsSameKey) {
  EXPECT_EQ(computeKey(sampleInputs()), computeKey(sampleInputs()));
}

TEST(CacheKey, EveryInputChangesTheKey) {
  const cache::Key base = computeKey(sampleInputs());
  const std::vector<std::pair<const char*, std::function<void(KeyInputs&)>>> changes = {
      {"heap size", [](KeyInputs& in) { in.heap.identity.size++; }},
      {"heap mtime", [](KeyInputs& in) { in.heap.identity.mtime_ns++; }},
      {"heap device", [](KeyInputs& in) { in.heap.identity.device++; }},
      {"heap inode", [](KeyInputs& in) { in.heap.identity.inode++; }},
      {"heap head and tail", [](KeyInputs& in) { in.heap.head_tail_hash++; }},
      {"build id", [](KeyInputs& in) { in.executable->build_id = "build-id-2"; }},
      {"executable size", [](KeyInputs& in) { in.executable->size++; }},
      {"executable bytes", [](KeyInputs& in) { in.executable->content_hash++; }},
      {"no executable", [](KeyInputs& in) { in.executable.reset(); }},
      {"executable known by its file",
       [](KeyInputs& in) { in.executable->file = cache::FileFingerprint{}; }},
      {"a separate debug file",
       [](KeyInputs& in) { in.executable->debug_file = cache::FileFingerprint{}; }},

      {"conservative stacks", [](KeyInputs& in) { in.options.conservative_stacks = false; }},
      {"typing", [](KeyInputs& in) { in.options.type_objects = false; }},
      {"format version", [](KeyInputs& in) { in.format_version++; }},
      {"goheap version", [](KeyInputs& in) { in.goheap_version = "999.0.0"; }},
  };
  for (const auto& [what, change] : changes) {
    KeyInputs in = sampleInputs();
    change(in);
    EXPECT_NE(computeKey(in), base) << what << " did not change the key";
  }
}

TEST(CacheKey, BuildIdAndSizeAloneAreNotMistakenForEachOther) {
  // Fields are tagged and strings length-prefixed: moving bytes from one
  // string to the next makes another key.
  KeyInputs a = sampleInputs();
  KeyInputs b = sampleInputs();
  // assign(), not = "ab": GCC 12 at -O3 warns (-Wrestrict, GCC bug 105329)
  // on assigning a literal to a string it has inlined.
  a.executable->build_id.assign(2, 'a');
  a.executable->build_id[1] = 'b';
  b.executable->build_id.assign(1, 'a');
  EXPECT_NE(computeKey(a), computeKey(b));
}

// Two executables with a separate debug file each, the same but for the
// debug file's bytes, are two keys.
TEST(CacheKey, TheDebugFilesBytesChangeTheKey) {
  KeyInputs a = sampleInputs();
  a.executable->debug_file = cache::FileFingerprint{};
  KeyInputs b = a;
  b.executable->debug_content_hash = 1;
  EXPECT_NE(computeKey(a), computeKey(b));
}

// Real executables that share a Go build ID but not their bytes: a copy
// whose DWARF was damaged, the twin stripped as Debian strips (objcopy
// --strip-debug keeps the build ID), and one rebuilt in place. Each is
// another key; a plain copy elsewhere is the same one.
TEST(CacheKey, ExecutablesWithOneBuildIdButOtherBytesAreOtherKeys) {
  namespace fs = std::filesystem;
  const std::string original = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24/zoo";
  if (!fs::exists(original)) GTEST_SKIP() << original << " was not built";
  const std::string copy = testing::scratch().file("zoo-copy");
  const std::string damaged = testing::scratch().file("zoo-damaged");
  const std::string stripped = testing::scratch().file("zoo-strip-debug");
  fs::copy_file(original, copy, fs::copy_options::overwrite_existing);
  fs::copy_file(original, damaged, fs::copy_options::overwrite_existing);
  auto keyOf = [](const std::string& path, std::string* build_id) {
    auto exe = bin::Binary::open(path);
    EXPECT_TRUE(exe.ok()) << path << ": " << exe.error().message();
    if (!exe.ok()) return cache::Key{};
    *build_id = exe->buildId();
    KeyInputs in = sampleInputs();
    in.executable = cache::fingerprintOf(*exe);
    return computeKey(in);
  };
  std::string id, other_id;
  const cache::Key key = keyOf(original, &id);
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(keyOf(copy, &other_id), key) << "a copy elsewhere is the same build";

  // Zero 256 bytes in the middle of .debug_info: same size, same build ID.
  {
    auto exe = bin::Binary::open(original);
    ASSERT_TRUE(exe.ok());
    const bin::Section* info = exe->container().section(".debug_info");
    ASSERT_NE(info, nullptr);
    std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(info->offset + info->size / 2));
    f.write(std::string(256, '\0').data(), 256);
  }
  EXPECT_NE(keyOf(damaged, &other_id), key);
  EXPECT_EQ(other_id, id);

  ASSERT_EQ(std::system(("objcopy --strip-debug " + original + " " + stripped).c_str()), 0);
  EXPECT_NE(keyOf(stripped, &other_id), key);
  EXPECT_EQ(other_id, id);

  // Rebuilt in place: another build written over the copy.
  const std::string rebuilt = std::string(GOHEAP_TESTDUMPS_DIR) + "/go1.24/leaks";
  fs::copy_file(rebuilt, copy, fs::copy_options::overwrite_existing);
  EXPECT_NE(keyOf(copy, &other_id), key);
}

class Fingerprint : public ::testing::Test {
 protected:
  void write(const std::string& bytes) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes;
  }
  // Sets the modification time back to `mtime`, as a careless copy might.
  void setMtime(const timespec& mtime) {
    const timespec times[2] = {mtime, mtime};
    ASSERT_EQ(::utimensat(AT_FDCWD, path_.c_str(), times, 0), 0);
  }
  timespec mtime() {
    struct stat st {};
    ::stat(path_.c_str(), &st);
    return st.st_mtim;
  }
  cache::FileFingerprint fingerprint() {
    auto f = cache::fingerprintOf(path_);
    EXPECT_TRUE(f) << f.error().message();
    return f ? *f : cache::FileFingerprint{};
  }

  std::string path_ = testing::scratch().file("fingerprint.bin");
};

TEST_F(Fingerprint, TellsTheFileAndItsEnds) {
  std::string bytes(300 * 1024, 'x');
  write(bytes);
  const timespec when = mtime();
  const cache::FileFingerprint first = fingerprint();
  EXPECT_EQ(first.identity.size, bytes.size());
  EXPECT_EQ(first.identity.mtime_ns, static_cast<int64_t>(when.tv_sec) * 1000000000 + when.tv_nsec);
  EXPECT_NE(first.identity.inode, 0u);

  // The same size and time, another byte in the head: the hash tells.
  bytes[10] = 'y';
  write(bytes);
  setMtime(when);
  const cache::FileFingerprint head = fingerprint();
  EXPECT_EQ(head.identity.mtime_ns, first.identity.mtime_ns);
  EXPECT_NE(head.head_tail_hash, first.head_tail_hash);

  bytes[10] = 'x';
  bytes[bytes.size() - 10] = 'y';
  write(bytes);
  setMtime(when);
  EXPECT_NE(fingerprint().head_tail_hash, first.head_tail_hash);
  EXPECT_NE(fingerprint().head_tail_hash, head.head_tail_hash);
}

TEST_F(Fingerprint, SmallAndEmptyFiles) {
  write("");
  EXPECT_EQ(fingerprint().identity.size, 0u);
  write("abc");
  const uint64_t abc = fingerprint().head_tail_hash;
  write("abd");
  EXPECT_NE(fingerprint().head_tail_hash, abc);
  EXPECT_FALSE(cache::fingerprintOf(testing::scratch().file("no-such-file")));
}

TEST(EntryDescription, RoundTripsEvenOddPaths) {
  cache::EntryDescription d;
  d.input_path = "/tmp/a dir\\with\nnewline/heap.dump";
  d.input_size = 123456789012;
  d.input_mtime_ns = -5;
  d.exe_path = "";
  d.goheap_version = "0.1.0";
  d.created_ns = 1700000000000000000;
  auto back = cache::EntryDescription::decode(d.encode());
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*back, d);
}

TEST(EntryDescription, SkipsUnknownNamesAndRefusesOtherText) {
  const std::string later =
      "goheap index description 1\ninput_path=/x\nnew_field=whatever\ninput_size=7\n";
  auto d = cache::EntryDescription::decode(
      {reinterpret_cast<const uint8_t*>(later.data()), later.size()});
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(d->input_path, "/x");
  EXPECT_EQ(d->input_size, 7u);
  for (const std::string bad : {"", "something else\n", "goheap index description 1\ninput_path=/x",
                                "goheap index description 1\nno equals sign\n",
                                "goheap index description 1\ninput_size=-1\n",
                                "goheap index description 1\ninput_path=\\q\n"}) {
    EXPECT_FALSE(
        cache::EntryDescription::decode({reinterpret_cast<const uint8_t*>(bad.data()), bad.size()}))
        << bad;
  }
}

}  // namespace
}  // namespace goheap
