#include "parquet/json_out.h"

#include <simdjson.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>

#include "parquet/format.h"

namespace preflight::parquet {

namespace {

// Whether a byte must be escaped inside a JSON string.
constexpr bool NeedsEscape(uint8_t c) { return c < 0x20 || c == '"' || c == '\\'; }

// Whether any of the 8 bytes at `p` needs escaping: a byte below 0x20, a quote or a backslash.
// Each test is exact for "any byte" (bytes of 0x80 and above never set a flag).
bool WordNeedsEscape(const uint8_t* p) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  uint64_t v;
  std::memcpy(&v, p, 8);
  const uint64_t quote = v ^ (kOnes * '"'), backslash = v ^ (kOnes * '\\');
  const uint64_t control = (v - kOnes * 0x20) & ~v;
  const uint64_t zero_quote = (quote - kOnes) & ~quote;
  const uint64_t zero_backslash = (backslash - kOnes) & ~backslash;
  return ((control | zero_quote | zero_backslash) & kHigh) != 0;
}

void AppendEscape(uint8_t c, std::string* out) {
  switch (c) {
    case '"':
      out->append("\\\"");
      return;
    case '\\':
      out->append("\\\\");
      return;
    case '\n':
      out->append("\\n");
      return;
    case '\r':
      out->append("\\r");
      return;
    case '\t':
      out->append("\\t");
      return;
    case '\b':
      out->append("\\b");
      return;
    case '\f':
      out->append("\\f");
      return;
    default: {
      static const char kHex[] = "0123456789abcdef";
      const char escaped[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out->append(escaped, 6);
    }
  }
}

// The length of the well-formed UTF-8 sequence at `p` (`n` bytes left), or 0.
size_t Utf8Length(const uint8_t* p, size_t n) {
  const uint8_t b = p[0];
  if (b < 0x80) return 1;
  size_t len = 0;
  uint8_t lo = 0x80, hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) {
    len = 2;
  } else if (b >= 0xe0 && b <= 0xef) {
    len = 3;
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;  // no surrogates
  } else if (b >= 0xf0 && b <= 0xf4) {
    len = 4;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (n < len || p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < len; ++i) {
    if ((p[i] & 0xc0) != 0x80) return 0;
  }
  return len;
}

template <typename T>
void AppendNumber(T v, std::string* out) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

void AppendPadded(int64_t v, int width, std::string* out) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  const int len = static_cast<int>(r.ptr - buf);
  if (len < width) out->append(static_cast<size_t>(width - len), '0');
  out->append(buf, r.ptr);
}

// Days since 1970-01-01 as "YYYY-MM-DD"; false (nothing written) outside years 0..9999.
bool AppendDate(int64_t days, std::string* out) {
  if (days < -719528 || days > 2932896) return false;
  const std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  AppendPadded(static_cast<int>(ymd.year()), 4, out);
  out->push_back('-');
  AppendPadded(static_cast<unsigned>(ymd.month()), 2, out);
  out->push_back('-');
  AppendPadded(static_cast<unsigned>(ymd.day()), 2, out);
  return true;
}

// A count of `unit` (0 ms, 1 us, 2 ns) since the epoch as a quoted ISO 8601 timestamp, or the
// plain number outside years 0..9999.
void AppendTimestamp(int64_t v, int unit, bool utc, std::string* out) {
  static constexpr int64_t kPerSecond[] = {1000, 1000000, 1000000000};
  static constexpr int kDigits[] = {3, 6, 9};
  const int64_t per_day = 86400 * kPerSecond[unit];
  int64_t days = v / per_day, rest = v % per_day;
  if (rest < 0) {
    rest += per_day;
    --days;
  }
  const size_t mark = out->size();
  out->push_back('"');
  if (!AppendDate(days, out)) {
    out->resize(mark);
    AppendNumber(v, out);
    return;
  }
  const int64_t seconds = rest / kPerSecond[unit];
  out->push_back('T');
  AppendPadded(seconds / 3600, 2, out);
  out->push_back(':');
  AppendPadded(seconds / 60 % 60, 2, out);
  out->push_back(':');
  AppendPadded(seconds % 60, 2, out);
  out->push_back('.');
  AppendPadded(rest % kPerSecond[unit], kDigits[unit], out);
  out->append(utc ? "Z\"" : "\"");
}

// INT96: nanoseconds of the day (8 bytes), then the Julian day (4 bytes), little-endian.
void AppendInt96(std::string_view bytes, std::string* out) {
  int64_t nanos = 0;
  int32_t julian = 0;
  std::memcpy(&nanos, bytes.data(), 8);
  std::memcpy(&julian, bytes.data() + 8, 4);
  constexpr int64_t kNanosPerDay = 86400LL * 1000000000LL;
  int64_t days = int64_t{julian} - 2440588 + nanos / kNanosPerDay;
  int64_t rest = nanos % kNanosPerDay;
  if (rest < 0) {
    rest += kNanosPerDay;
    --days;
  }
  if (days < -719528 || days > 2932896) {
    out->append("null");
    return;
  }
  AppendTimestamp(days * kNanosPerDay + rest, 2, true, out);
}

// An integer with `scale` digits after the decimal point, as a JSON number.
void AppendDecimal(int64_t v, int scale, std::string* out) {
  if (scale == 0) return AppendNumber(v, out);
  if (v < 0) out->push_back('-');
  const uint64_t magnitude = v < 0 ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), magnitude);
  std::string digits(buf, r.ptr);
  if (digits.size() <= static_cast<size_t>(scale)) {
    digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  }
  out->append(digits, 0, digits.size() - scale);
  out->push_back('.');
  out->append(digits, digits.size() - scale, std::string::npos);
}

void AppendUuid(std::string_view bytes, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out->push_back('-');
    const uint8_t b = static_cast<uint8_t>(bytes[i]);
    out->push_back(kHex[b >> 4]);
    out->push_back(kHex[b & 15]);
  }
  out->push_back('"');
}

void AppendFloating(double d, bool single, std::string* out) {
  if (!std::isfinite(d)) {
    out->append("null");
  } else if (single) {
    AppendNumber(static_cast<float>(d), out);
  } else {
    AppendNumber(d, out);
  }
}

}  // namespace

void AppendJsonString(std::string_view text, std::string* out) {
  out->reserve(out->size() + text.size() + 2);
  out->push_back('"');
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < n; ++i) {
    // Eight bytes at a time while none of them needs escaping (most of a text).
    while (i + 8 <= n && !WordNeedsEscape(p + i)) i += 8;
    if (i >= n) break;
    if (!NeedsEscape(p[i])) continue;
    out->append(text.data() + run, i - run);
    AppendEscape(p[i], out);
    run = i + 1;
  }
  out->append(text.data() + run, n - run);
  out->push_back('"');
}

void AppendJsonStringRepairing(std::string_view text, std::string* out) {
  if (simdjson::validate_utf8(text.data(), text.size())) return AppendJsonString(text, out);
  out->push_back('"');
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const size_t len = Utf8Length(p + i, text.size() - i);
    if (len == 0) {
      out->append("\xef\xbf\xbd");
      ++i;
    } else if (len == 1 && NeedsEscape(p[i])) {
      AppendEscape(p[i++], out);
    } else {
      out->append(text.data() + i, len);
      i += len;
    }
  }
  out->push_back('"');
}

void AppendJsonValue(const Column& column, const Value& value, std::string* out) {
  if (value.null) {
    out->append("null");
    return;
  }
  const bool int32 = column.physical == kInt32;
  switch (column.kind) {
    case ValueKind::kBool:
      out->append(value.i != 0 ? "true" : "false");
      return;
    case ValueKind::kInt:
      return AppendNumber(value.i, out);
    case ValueKind::kUInt:
      return AppendNumber(
          int32 ? uint64_t{static_cast<uint32_t>(value.i)} : static_cast<uint64_t>(value.i), out);
    case ValueKind::kFloat:
      return AppendFloating(value.d, true, out);
    case ValueKind::kDouble:
      return AppendFloating(value.d, false, out);
    case ValueKind::kString:
      return AppendJsonStringRepairing(value.s, out);
    case ValueKind::kDate: {
      const size_t mark = out->size();
      out->push_back('"');
      if (AppendDate(value.i, out)) {
        out->push_back('"');
      } else {
        out->resize(mark);
        AppendNumber(value.i, out);
      }
      return;
    }
    case ValueKind::kTimestamp:
      return AppendTimestamp(value.i, column.time_unit, column.utc, out);
    case ValueKind::kInt96Timestamp:
      return AppendInt96(value.s, out);
    case ValueKind::kDecimal:
      return AppendDecimal(value.i, column.scale, out);
    case ValueKind::kUuid:
      return AppendUuid(value.s, out);
    case ValueKind::kNull:
    case ValueKind::kNone:
      out->append("null");
      return;
  }
}

void AppendIdText(const Column& column, const Value& value, std::string* out) {
  if (column.kind == ValueKind::kString && !value.null) {
    out->append(value.s);
    return;
  }
  AppendJsonValue(column, value, out);
}

}  // namespace preflight::parquet
