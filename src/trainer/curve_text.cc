#include <algorithm>
#include <charconv>
#include <map>

#include "trainer/curve_formats.h"

namespace preflight::trainer::curve_text {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

Status LineError(const std::string& path, int line, const std::string& what) {
  return Status::Corruption(path + ":" + std::to_string(line) + ": " + what);
}

bool ParseInt(std::string_view text, int64_t* out) {
  text = Trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return !text.empty() && ec == std::errc() && ptr == end;
}

bool ParseNumber(std::string_view text, double* out) {
  text = Trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return !text.empty() && ec == std::errc() && ptr == end;
}

void KeepLastPerStep(RawCurve& curve) {
  std::map<int64_t, RawPoint> by_step;
  for (RawPoint& p : curve.points) by_step[p.step] = std::move(p);
  curve.points.clear();
  for (auto& [step, point] : by_step) curve.points.push_back(std::move(point));
}

}  // namespace preflight::trainer::curve_text
