#include "cost/format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace preflight::cost {
namespace {

// Inserts thousands separators into the integer part of a plain decimal string.
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

}  // namespace

std::string FormatFixed(double x, int decimals) {
  if (!std::isfinite(x)) return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(x));
  std::string s = GroupThousands(buf);
  // "-0" after rounding is just "0".
  bool negative = x < 0 && s.find_first_not_of("0.,") != std::string::npos;
  return negative ? "-" + s : s;
}

std::string FormatPlain(double x, int max_decimals) {
  std::string s = FormatFixed(x, max_decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string FormatUsd(double usd) {
  double a = std::fabs(usd);
  bool whole = a >= 100 || std::round(a * 100) == std::round(a) * 100;
  std::string body = FormatFixed(a, whole ? 0 : 2);
  bool negative = usd < 0 && body.find_first_not_of("0.,") != std::string::npos;
  return (negative ? "-$" : "$") + body;
}

std::string FormatSci(double x, int digits) {
  if (!std::isfinite(x)) return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
  if (x == 0) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
  std::string s = buf;
  size_t e = s.find('e');
  std::string mantissa = s.substr(0, e);
  int exponent = std::atoi(s.c_str() + e + 1);
  // Trailing zeros of the mantissa carry no information: "6.00e23" -> "6e23".
  if (mantissa.find('.') != std::string::npos) {
    while (mantissa.back() == '0') mantissa.pop_back();
    if (mantissa.back() == '.') mantissa.pop_back();
  }
  return exponent == 0 ? mantissa : mantissa + "e" + std::to_string(exponent);
}

std::string FormatG(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

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
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, s.suffix);
      return buf;
    }
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
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

}  // namespace preflight::cost
