#include "cli/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "base/clock.h"
#include "base/number_format.h"

namespace preflight::cli {

std::string HumanDuration(double s) {
  char buf[32];
  if (!std::isfinite(s) || s < 0) return "?";
  long t = std::lround(s);
  if (t < 60) {
    std::snprintf(buf, sizeof(buf), "%lds", t);
  } else if (t < 3600) {
    std::snprintf(buf, sizeof(buf), "%ldm%02lds", t / 60, t % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ldh%02ldm", t / 3600, (t % 3600) / 60);
  }
  return buf;
}

Progress::Progress(std::string label, double total, std::string unit, bool enabled)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      start_(WallSeconds()),
      enabled_(enabled),
      tty_(isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() {
  if (!finished_ && enabled_ && tty_ && last_draw_ >= 0) std::fputc('\n', stderr);
}

void Progress::Update(double done, const std::string& note) {
  if (!enabled_) return;
  double now = WallSeconds();
  double frac = total_ > 0 ? done / total_ : 0;
  int decile = static_cast<int>(frac * 10);
  if (tty_) {
    if (last_draw_ >= 0 && now - last_draw_ < 0.1) return;
  } else if (decile == last_decile_) {
    return;
  }
  last_draw_ = now;
  last_decile_ = decile;
  std::fprintf(stderr, "%s%s %5.1f%%%s%s%s%s", tty_ ? "\r\033[K" : "", label_.c_str(), 100.0 * frac,
               RateText(done, now - start_).c_str(), note.empty() ? "" : " | ", note.c_str(),
               tty_ ? "" : "\n");
  std::fflush(stderr);
}

std::string Progress::RateText(double done, double elapsed) const {
  // Nothing done yet, or too short a time to measure a rate by (a small input read at once
  // showed "227.8 GB/s"): no rate and no ETA rather than an impossible or empty one.
  if (!(done > 0) || elapsed < kMinRateSeconds) return "";
  const double rate = done / elapsed;
  const std::string rate_text = unit_ == "B"
                                    ? HumanBytes(rate) + "/s"
                                    : std::to_string(std::lround(rate)) + " " + unit_ + "/s";
  return " | " + rate_text + " | ETA " + HumanDuration((total_ - done) / rate);
}

void Progress::Finish(const std::string& note) {
  if (!enabled_ || finished_) return;
  finished_ = true;
  double elapsed = WallSeconds() - start_;
  std::fprintf(stderr, "%s%s done in %s%s%s\n", tty_ ? "\r\033[K" : "", label_.c_str(),
               HumanDuration(elapsed).c_str(), note.empty() ? "" : " | ", note.c_str());
}

void Progress::Stop() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  std::fprintf(stderr, "%s%s stopped after %s\n", tty_ ? "\r\033[K" : "", label_.c_str(),
               HumanDuration(WallSeconds() - start_).c_str());
}

}  // namespace preflight::cli
