// The hand-written protobuf encoding and gzip stream under the pprof writers,
// byte for byte against the wire format's rules.
#include "export/profile_proto.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <string>

namespace goheap::exporting {
namespace {

std::string hexOf(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

TEST(ProtoBuffer, VarintsAreLittleEndianSevenBitGroups) {
  ProtoBuffer b;
  b.varint(0);
  b.varint(1);
  b.varint(127);
  b.varint(128);
  b.varint(300);
  EXPECT_EQ(hexOf(b.bytes()), "00017f8001ac02");
  b.clear();
  b.varint(UINT64_MAX);  // ten bytes, the last holding one bit
  EXPECT_EQ(hexOf(b.bytes()), "ffffffffffffffffff01");
}

TEST(ProtoBuffer, FieldsCarryTheirNumberAndWireType) {
  ProtoBuffer b;
  b.uintField(1, 150);  // tag 1<<3|0
  b.uintField(2, 0);    // zero: left out, as proto3 does
  b.bytesField(2, "testing");
  EXPECT_EQ(hexOf(b.bytes()),
            "089601"
            "120774657374696e67");
  b.clear();
  b.intField(2, -1);  // int64: two's complement, ten bytes
  EXPECT_EQ(hexOf(b.bytes()), "10ffffffffffffffffff01");
  b.clear();
  const uint64_t values[] = {3, 270, 86942};
  b.packedField(4, values);
  EXPECT_EQ(hexOf(b.bytes()), "2206038e029ea705");
}

// Inflates a gzip stream.
std::string gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[4096];
  int r = Z_OK;
  while (r == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    r = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  EXPECT_EQ(r, Z_STREAM_END);
  inflateEnd(&z);
  return out;
}

TEST(GzipSink, WritesOneGzipStreamOfEverythingWritten) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  std::string expected;
  {
    Output out(f, "tmp");
    GzipSink gz(out);
    for (int i = 0; i < 20000; i++) {
      std::string piece = "sample " + std::to_string(i * 7919) + "\n";
      gz.write(piece);
      expected += piece;
    }
    ASSERT_TRUE(gz.finish());
    ASSERT_TRUE(out.finish());
  }
  std::string gz(static_cast<size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  ASSERT_EQ(std::fread(gz.data(), 1, gz.size(), f), gz.size());
  std::fclose(f);
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  EXPECT_EQ(gunzip(gz), expected);
}

}  // namespace
}  // namespace goheap::exporting
