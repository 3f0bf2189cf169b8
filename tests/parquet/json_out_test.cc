// A row's values as JSON text: escaping, repair of bytes that are not UTF-8, and the forms of
// dates, timestamps, decimals, unsigned integers, floats and UUIDs.

#include "parquet/json_out.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "parquet/format.h"

namespace preflight::parquet {
namespace {

std::string Json(const Column& c, const Value& v) {
  std::string out;
  AppendJsonValue(c, v, &out);
  return out;
}

Column Kind(ValueKind kind, int32_t physical) {
  Column c;
  c.kind = kind;
  c.physical = physical;
  return c;
}

Value Int(int64_t i) {
  Value v;
  v.null = false;
  v.i = i;
  return v;
}

Value Double(double d) {
  Value v;
  v.null = false;
  v.d = d;
  return v;
}

TEST(ParquetJson, StringsRoundTripByteForByte) {
  std::string all;
  for (int c = 1; c < 128; ++c) all.push_back(static_cast<char>(c));
  all += "é中😀\u2028";
  all.push_back('\0');
  std::string out;
  AppendJsonString(all, &out);
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), all);
  EXPECT_EQ(out.substr(0, 13), "\"\\u0001\\u0002");
  out.clear();
  AppendJsonString("a\"b\\c\nd\te", &out);
  EXPECT_EQ(out, R"("a\"b\\c\nd\te")");
}

// The escaper skips eight bytes at a time: a character to escape at any position is still found.
TEST(ParquetJson, EscapesAreFoundAtEveryAlignment) {
  for (char special : {'"', '\\', '\n', '\x01', '\x1f'}) {
    for (size_t at = 0; at < 24; ++at) {
      std::string text = "abcdefghijklmnopqrstuvwxyz\xc3\xa9";
      text[at] = special;
      std::string out;
      AppendJsonString(text, &out);
      EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), text) << at;
      EXPECT_EQ(out.size(), text.size() + 2 + (special == '\x01' || special == '\x1f' ? 5 : 1));
    }
  }
}

TEST(ParquetJson, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  std::string out;
  AppendJsonStringRepairing(
      std::string("ok \xff \xc3 \xed\xa0\x80 \xf4\x90\x80\x80 \xc3\xa9\n", 19), &out);
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(),
            "ok \xef\xbf\xbd \xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xc3\xa9\n");
}

TEST(ParquetJson, NumbersDatesAndTimestamps) {
  EXPECT_EQ(Json(Kind(ValueKind::kInt, kInt64), Int(INT64_MIN)), "-9223372036854775808");
  EXPECT_EQ(Json(Kind(ValueKind::kUInt, kInt64), Int(-1)), "18446744073709551615");
  EXPECT_EQ(Json(Kind(ValueKind::kUInt, kInt32), Int(-1)), "4294967295");
  EXPECT_EQ(Json(Kind(ValueKind::kBool, kBoolean), Int(1)), "true");
  EXPECT_EQ(Json(Kind(ValueKind::kDouble, kDouble), Double(0.1)), "0.1");
  EXPECT_EQ(Json(Kind(ValueKind::kFloat, kFloat), Double(static_cast<float>(0.1))), "0.1");
  EXPECT_EQ(Json(Kind(ValueKind::kDouble, kDouble), Double(1.0 / 0.0)), "null");
  EXPECT_EQ(Json(Kind(ValueKind::kDate, kInt32), Int(19000)), "\"2022-01-08\"");
  EXPECT_EQ(Json(Kind(ValueKind::kDate, kInt32), Int(-719528)), "\"0000-01-01\"");
  EXPECT_EQ(Json(Kind(ValueKind::kDate, kInt32), Int(2932897)), "2932897");  // past 9999
  Column micros = Kind(ValueKind::kTimestamp, kInt64);
  micros.time_unit = 1;
  micros.utc = true;
  EXPECT_EQ(Json(micros, Int(-1)), "\"1969-12-31T23:59:59.999999Z\"");
  micros.utc = false;
  EXPECT_EQ(Json(micros, Int(86400000000)), "\"1970-01-02T00:00:00.000000\"");
  Column decimal = Kind(ValueKind::kDecimal, kInt64);
  decimal.scale = 3;
  EXPECT_EQ(Json(decimal, Int(-5)), "-0.005");
  EXPECT_EQ(Json(decimal, Int(123456)), "123.456");
  EXPECT_EQ(Json(decimal, Int(INT64_MIN)), "-9223372036854775.808");
  Value null;
  EXPECT_EQ(Json(decimal, null), "null");
}

TEST(ParquetJson, Int96AndUuid) {
  // 2001-09-09T01:46:40.5Z: Julian day 2452162, 6400.5 s into the day.
  std::string int96(12, '\0');
  const int64_t nanos = 6400500000000;
  const int32_t julian = 2452162;
  std::memcpy(int96.data(), &nanos, 8);
  std::memcpy(int96.data() + 8, &julian, 4);
  Value v;
  v.null = false;
  v.s = int96;
  EXPECT_EQ(Json(Kind(ValueKind::kInt96Timestamp, kInt96), v),
            "\"2001-09-09T01:46:40.500000000Z\"");
  const std::string uuid("\x12\x34\x56\x78\x9a\xbc\xde\xf0\x01\x23\x45\x67\x89\xab\xcd\xef", 16);
  v.s = uuid;
  EXPECT_EQ(Json(Kind(ValueKind::kUuid, kFixedLenByteArray), v),
            "\"12345678-9abc-def0-0123-456789abcdef\"");
}

}  // namespace
}  // namespace preflight::parquet
