#include "base/number_format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace preflight {
namespace {

std::string NonFinite(double x) { return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf"); }

// Inserts thousands separators into the integer part of a plain decimal string (no sign).
std::string GroupThousands(const std::string& digits) {
  size_t dot = digits.find('.');
  std::string int_part = digits.substr(0, dot);
  std::string rest = dot == std::string::npos ? "" : digits.substr(dot);
  std::string out;
  int n = static_cast<int>(int_part.size());
  for (int i = 0; i < n; ++i) {
    out += int_part[i];
    int left = n - 1 - i;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + rest;
}

std::string DropTrailingZeros(std::string s) {
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

std::string FormatInt(int64_t value) {
  // The magnitude as unsigned, so that INT64_MIN has one too.
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : value;
  std::string body = GroupThousands(fmt::format("{}", magnitude));
  return value < 0 ? "-" + body : body;
}

std::string FormatFixed(double x, int decimals) {
  if (!std::isfinite(x)) return NonFinite(x);
  std::string s = GroupThousands(fmt::format("{:.{}f}", std::fabs(x), decimals));
  // "-0" after rounding is just "0".
  bool negative = x < 0 && s.find_first_not_of("0.,") != std::string::npos;
  return negative ? "-" + s : s;
}

std::string FormatPlain(double x, int max_decimals) {
  return DropTrailingZeros(FormatFixed(x, max_decimals));
}

std::string FormatUsd(double usd) {
  double a = std::fabs(usd);
  bool whole = a >= 100 || std::round(a * 100) == std::round(a) * 100;
  std::string body = FormatFixed(a, whole ? 0 : 2);
  bool negative = usd < 0 && body.find_first_not_of("0.,") != std::string::npos;
  return (negative ? "-$" : "$") + body;
}

std::string FormatSci(double x, int digits) {
  if (!std::isfinite(x)) return NonFinite(x);
  if (x == 0) return "0";
  std::string s = fmt::format("{:.{}e}", x, digits - 1);
  size_t e = s.find('e');
  // Trailing zeros of the mantissa carry no information: "6.00e23" -> "6e23".
  std::string mantissa = DropTrailingZeros(s.substr(0, e));
  int exponent = std::atoi(s.c_str() + e + 1);
  return exponent == 0 ? mantissa : mantissa + "e" + std::to_string(exponent);
}

std::string FormatG(double x, int digits) { return fmt::format("{:.{}g}", x, digits); }

std::string FormatCount(double x) {
  if (!std::isfinite(x)) return FormatSci(x);
  static constexpr struct {
    double scale;
    const char* suffix;
  } kScales[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}};
  double ax = std::fabs(x);
  if (ax >= 1e15) return FormatSci(x);
  for (const auto& s : kScales) {
    if (ax >= s.scale) {
      double v = x / s.scale;
      double av = std::fabs(v);
      int decimals = av >= 100 ? 0 : (av >= 10 ? 1 : 2);
      return fmt::format("{:.{}f}{}", v, decimals, s.suffix);
    }
  }
  return fmt::format("{:.3g}", x);
}

std::string FormatBytes(double bytes) {
  if (std::fabs(bytes) < 1024.0 * 1024.0 * 1024.0) {
    return FormatFixed(bytes / (1024.0 * 1024.0), 1) + " MiB";
  }
  return FormatGiB(bytes);
}

std::string FormatGiB(double bytes) {
  return FormatFixed(bytes / (1024.0 * 1024.0 * 1024.0), 1) + " GiB";
}

std::string FormatDecimalBytes(int64_t bytes) {
  if (bytes <= 0) return "unknown size";
  static constexpr const char* kUnits[] = {"bytes", "kB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  return u == 0 ? fmt::format("{} bytes", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::string FormatPercent(double fraction) {
  if (std::isnan(fraction)) return "undefined";
  if (!std::isfinite(fraction)) return fraction < 0 ? "never caught up" : "unbounded";
  std::string s = fmt::format("{:.1f}%", fraction * 100);
  return s == "-0.0%" ? "0.0%" : s;
}

std::string FormatSteps(double steps) {
  if (std::isnan(steps)) return "undefined";
  if (!std::isfinite(steps)) return "never";
  double whole = std::floor(steps);
  if (steps == whole) return FormatInt(static_cast<int64_t>(whole));
  // One decimal, carried into the integer part when it rounds up (999.96 -> "1,000.0").
  int64_t tenths = std::llround(steps * 10);
  return fmt::format("{}.{}", FormatInt(tenths / 10), tenths % 10);
}

std::string FormatFlops(double flops) {
  if (std::isnan(flops)) return "undefined";
  if (!std::isfinite(flops)) return "never";
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E", "Z"};
  int p = 0;
  double v = flops;
  while (std::abs(v) >= 999.5 && p < 7) {
    v /= 1000;
    ++p;
  }
  return fmt::format("{:.3g} {}FLOP", v, kPrefixes[p]);
}

std::string HumanBytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace preflight
