// The DWARF encoding layer's errors: an attribute form the standard (DWARF
// 5, section 7.5.6) does not define marks the cursor failed, naming the form
// in hexadecimal and the offset of its value.
#include "bin/dwarf_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace goheap::bin::dwarf {
namespace {

TEST(DwarfReader, UnknownFormIsAnErrorNamingItInHex) {
  const std::vector<uint8_t> bytes(8);
  UnitHeader u;
  u.version = 4;
  u.addr_size = 8;
  for (const auto& [form, message] :
       {std::pair<uint16_t, const char*>{0x30,
                                         "at byte offset 2 (.debug_info): unknown attribute "
                                         "form 0x30"},
        {0x1f03, "at byte offset 2 (.debug_info): unknown attribute form 0x1f03"}}) {
    Cursor c(ByteView(bytes, false), 2, ".debug_info");
    AttrSpec spec;
    spec.attr = 0x03;
    spec.form = form;
    readForm(c, spec, u);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().message(), message);
  }
}

}  // namespace
}  // namespace goheap::bin::dwarf
