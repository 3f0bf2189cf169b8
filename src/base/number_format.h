#pragma once
// The one number formatter: numbers as people read them in plans, reports and summaries.
// Built on fmt; pure functions, thread-safe. Non-finite inputs print as words, never as "inf".

#include <cstdint>
#include <string>

namespace preflight {

// "1,234,567", "-12": an integer with thousands separators.
std::string FormatInt(int64_t value);
// "18.4" with `decimals` decimals, thousands separated: "1,234.5".
std::string FormatFixed(double x, int decimals);
// "4", "2.5", "90", "1,234.57": at most `max_decimals` decimals, trailing zeros dropped.
std::string FormatPlain(double x, int max_decimals = 2);
// "$4,320,000" (whole dollars from $100 up or when whole, cents below: "$2.99", "$0"); negative
// amounts as "-$1,234".
std::string FormatUsd(double usd);
// "5.88e23": `digits` significant digits, exponent without '+' or leading zeros.
std::string FormatSci(double x, int digits = 3);
// "482.01", "0.3478", "1.2e-05": up to `digits` significant digits, printf %g style.
std::string FormatG(double x, int digits = 6);
// "72.2B", "1.33T", "950M", "12.5k": three significant digits with a count suffix.
std::string FormatCount(double x);
// "512.0 MiB", "17.6 GiB": binary units, MiB below 1 GiB.
std::string FormatBytes(double bytes);
// "17.6 GiB" (binary units: what nvidia-smi and allocators report).
std::string FormatGiB(double bytes);
// "5.5 MB", "812 bytes": decimal units, as file sizes are usually quoted; "unknown size" if <= 0.
std::string FormatDecimalBytes(int64_t bytes);
// A saving or share: "42.5%"; -inf is "never caught up" (a curve that never reached its target),
// +inf "unbounded", NaN "undefined".
std::string FormatPercent(double fraction);
// A (possibly interpolated) step: "1,234" or "200.7"; +inf is "never", NaN "undefined".
std::string FormatSteps(double steps);
// Engineering notation with an SI prefix: 1.23e12 -> "1.23 TFLOP"; +inf "never".
std::string FormatFlops(double flops);

// "812 B", "12.3 MB", "4.5 GB": bytes in decimal units, one decimal from kB up.
std::string HumanBytes(double bytes);

}  // namespace preflight
