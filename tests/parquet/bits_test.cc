// The bit-level decoders against streams built by hand from the format's description.

#include "parquet/bits.h"

#include <gtest/gtest.h>

#include <vector>

namespace preflight::parquet {
namespace {

std::vector<uint32_t> DecodeRle(const std::vector<uint8_t>& bytes, int width, size_t want) {
  RleDecoder d;
  d.Init(bytes.data(), bytes.size(), width);
  std::vector<uint32_t> out(want + 8);
  out.resize(d.Get(out.data(), want));
  return out;
}

TEST(ParquetBits, ReadBitsTakesLeastSignificantBitsFirstAndZerosPastTheEnd) {
  const uint8_t bytes[] = {0b10110100, 0xff, 0x01};
  EXPECT_EQ(ReadBits(bytes, 3, 0, 3), 0b100u);
  EXPECT_EQ(ReadBits(bytes, 3, 3, 3), 0b110u);
  EXPECT_EQ(ReadBits(bytes, 3, 6, 4), 0b1110u);
  EXPECT_EQ(ReadBits(bytes, 3, 16, 8), 1u);
  EXPECT_EQ(ReadBits(bytes, 3, 17, 20), 0u);
  EXPECT_EQ(ReadBits(bytes, 3, 0, 0), 0u);
  const uint8_t wide[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
  EXPECT_EQ(ReadBits(wide, 10, 4, 64), ~uint64_t{0});
  EXPECT_EQ(ReadBits(wide, 10, 12, 64), ~uint64_t{0} >> 4);
}

TEST(ParquetBits, RleHybridRunsAndBitPackedGroups) {
  // RLE run: 5 x value 3 (width 2: one value byte); bit-packed: 1 group of 8 values 0..3,0..3.
  const std::vector<uint8_t> bytes = {5 << 1, 3, (1 << 1) | 1, 0b11100100, 0b11100100};
  EXPECT_EQ(DecodeRle(bytes, 2, 13),
            (std::vector<uint32_t>{3, 3, 3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  // Width 0: every value is zero, no value bytes.
  EXPECT_EQ(DecodeRle({4 << 1}, 0, 4), (std::vector<uint32_t>{0, 0, 0, 0}));
  // A bit-packed run claiming 60 groups keeps only the values its bytes hold.
  EXPECT_EQ(DecodeRle({(60 << 1) | 1, 0xff}, 1, 50).size(), 8u);
  // A repeated value wider than the bit width is corrupt; so is a cut varint.
  RleDecoder d;
  const uint8_t wide[] = {2 << 1, 0x09};
  d.Init(wide, 2, 3);
  uint32_t out[4];
  EXPECT_EQ(d.Get(out, 2), 0u);
  EXPECT_TRUE(d.corrupt());
  const uint8_t cut[] = {0x80};
  d.Init(cut, 1, 1);
  EXPECT_EQ(d.Get(out, 1), 0u);
  EXPECT_TRUE(d.corrupt());
}

// DELTA_BINARY_PACKED: block 128, 4 miniblocks of 32; first value 7, then deltas of 2 (min delta
// 2, every packed delta 0: bit width 0), a second stream follows it.
TEST(ParquetBits, DeltaBinaryPackedValuesAndLength) {
  std::vector<uint8_t> bytes = {0x80, 0x01, 4, 40, 14 /* zigzag 7 */, 4 /* zigzag 2 */, 0, 0, 0, 0};
  bytes.push_back(0xaa);  // what follows the stream
  DeltaDecoder d;
  std::string error;
  ASSERT_TRUE(d.Init(bytes.data(), bytes.size(), &error)) << error;
  EXPECT_EQ(d.total(), 40u);
  size_t length = 0;
  ASSERT_TRUE(d.Measure(&length, &error)) << error;
  EXPECT_EQ(length, bytes.size() - 1);
  std::vector<int64_t> values(64);
  values.resize(d.Get(values.data(), values.size()));
  ASSERT_EQ(values.size(), 40u);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], 7 + 2 * static_cast<int64_t>(i));
  EXPECT_FALSE(d.corrupt());
}

TEST(ParquetBits, DeltaBinaryPackedWithPackedDeltasAndNegatives) {
  // 3 values: first -1, deltas -5 and +3: min delta -5, packed 0 and 8 (width 4).
  std::vector<uint8_t> bytes = {0x80, 0x01, 4, 3, 1 /* zigzag -1 */, 9 /* zigzag -5 */, 4, 0, 0, 0};
  std::vector<uint8_t> packed(32 * 4 / 8, 0);
  packed[0] = 0x80;  // value 0 = 0, value 1 = 8
  bytes.insert(bytes.end(), packed.begin(), packed.end());
  DeltaDecoder d;
  std::string error;
  ASSERT_TRUE(d.Init(bytes.data(), bytes.size(), &error)) << error;
  int64_t out[8];
  ASSERT_EQ(d.Get(out, 8), 3u);
  EXPECT_EQ(out[0], -1);
  EXPECT_EQ(out[1], -6);
  EXPECT_EQ(out[2], -3);
  size_t length = 0;
  ASSERT_TRUE(d.Measure(&length, &error));
  EXPECT_EQ(length, bytes.size());
}

TEST(ParquetBits, DeltaBinaryPackedRefusesBadHeadersAndShortData) {
  DeltaDecoder d;
  std::string error;
  const uint8_t odd_block[] = {100, 4, 3, 0};
  EXPECT_FALSE(d.Init(odd_block, sizeof(odd_block), &error));
  const uint8_t cut[] = {0x80, 0x01, 4};
  EXPECT_FALSE(d.Init(cut, sizeof(cut), &error));
  // 40 values with a miniblock of width 8 (32 bytes) that is not there.
  const uint8_t short_data[] = {0x80, 0x01, 4, 40, 0, 0, 8, 8, 8, 8, 1, 2};
  ASSERT_TRUE(d.Init(short_data, sizeof(short_data), &error));
  size_t length = 0;
  EXPECT_FALSE(d.Measure(&length, &error));
  int64_t out[64];
  EXPECT_LT(d.Get(out, 64), 40u);
  EXPECT_TRUE(d.corrupt());
}

}  // namespace
}  // namespace preflight::parquet
