#pragma once
// Numbers as people read them in budgets and plans. Pure functions, thread-safe.

#include <string>

namespace preflight::cost {

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
// "4", "2.5", "90", "1,234.57": at most `max_decimals` decimals, trailing zeros dropped.
std::string FormatPlain(double x, int max_decimals = 2);
// "18.4" with `decimals` decimals, thousands separated: "1,234.5".
std::string FormatFixed(double x, int decimals);

}  // namespace preflight::cost
