#pragma once
// A progress line on stderr for long work: label, fraction, rate, ETA and a caller's note.
// On a terminal it redraws in place at most 10 times a second; otherwise it prints a line at
// every 10% so that logs stay short. The rate and the ETA are shown once something is done and
// at least kMinRateSeconds have passed (a rate over less says nothing). Silent when disabled
// (e.g. --quiet).

#include <string>

namespace preflight::cli {

class Progress {
 public:
  static constexpr double kMinRateSeconds = 1.0;

  // `total` in the caller's units (bytes, steps); `unit` names them for the rate ("B", "step").
  Progress(std::string label, double total, std::string unit, bool enabled = true);
  ~Progress();
  void Update(double done, const std::string& note = "");
  void Finish(const std::string& note = "");
  // Ends the line as "<label> stopped after <time>": the work did not finish (an error follows).
  void Stop();
  void SetTotal(double total) { total_ = total; }

 private:
  // " | <rate> | ETA <time>", or "" (see above).
  std::string RateText(double done, double elapsed) const;

  std::string label_, unit_;
  double total_, start_, last_draw_ = -1;
  int last_decile_ = -1;
  bool enabled_, tty_, finished_ = false;
};

// "1m05s", "2h03m"
std::string HumanDuration(double seconds);

}  // namespace preflight::cli
