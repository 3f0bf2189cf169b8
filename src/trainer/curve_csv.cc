// CSV curves (litgpt's metrics.csv and the like): named columns, one row per logged step.

#include <cmath>

#include "trainer/curve_formats.h"

namespace preflight::trainer {
namespace {

using curve_text::LineError;

// The cells of one row: comma-separated, a cell in double quotes may hold commas ("" is a quote).
std::vector<std::string> Cells(std::string_view row) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < row.size(); ++i) {
    const char ch = row[i];
    if (quoted) {
      if (ch == '"' && i + 1 < row.size() && row[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cells.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

// The index of column `name` in the header; -1 when `name` is empty.
Result<int> ColumnIndex(const std::string& path, const std::vector<std::string>& header,
                        const std::string& name) {
  if (name.empty()) return -1;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  std::string known;
  for (const std::string& h : header) known += (known.empty() ? "" : ", ") + h;
  return LineError(path, 1,
                   "no column '" + name + "' (columns: " + known + "); see --curve-columns");
}

bool Blank(const std::string& cell) { return cell.find_first_not_of(" \t") == std::string::npos; }

// A step written as an integer, or as a number with no fractional part ("100.0").
bool ParseStep(const std::string& cell, int64_t* out) {
  if (curve_text::ParseInt(cell, out)) return true;
  double v = 0;
  // In range before the cast: converting NaN, an infinity or 1e300 to an integer is undefined
  // (found by fuzz_curve_csv).
  if (!curve_text::ParseNumber(cell, &v) || !(v >= -9.2e18 && v <= 9.2e18) || v != std::trunc(v)) {
    return false;
  }
  *out = static_cast<int64_t>(v);
  return true;
}

}  // namespace

Result<RawCurve> ReadCsvCurve(const std::string& path, std::string_view text,
                              const CurveColumns& columns) {
  const std::vector<std::string_view> lines = curve_text::Lines(text);
  if (lines.empty()) return LineError(path, 1, "empty file: no header row");
  const std::vector<std::string> header = Cells(lines[0]);
  const bool bpb = !columns.bpb.empty();
  PF_ASSIGN_OR_RETURN(int step_col, ColumnIndex(path, header, columns.step));
  PF_ASSIGN_OR_RETURN(int loss_col, ColumnIndex(path, header, bpb ? columns.bpb : columns.loss));
  PF_ASSIGN_OR_RETURN(int tokens_col, ColumnIndex(path, header, columns.tokens));
  RawCurve curve{path, {}};
  for (size_t i = 1; i < lines.size(); ++i) {
    const int line = static_cast<int>(i) + 1;
    if (Blank(std::string(lines[i]))) continue;
    const std::vector<std::string> cells = Cells(lines[i]);
    if (cells.size() != header.size()) {
      return LineError(path, line,
                       "has " + std::to_string(cells.size()) + " cells, the header " +
                           std::to_string(header.size()));
    }
    const std::string& loss = cells[static_cast<size_t>(loss_col)];
    if (Blank(loss)) continue;  // a row of other metrics
    RawPoint p;
    p.line = line;
    p.bits_per_byte = bpb;
    if (!ParseStep(cells[static_cast<size_t>(step_col)], &p.step)) {
      return LineError(path, line,
                       "step '" + cells[static_cast<size_t>(step_col)] + "' is not a whole number");
    }
    if (!curve_text::ParseNumber(loss, &p.value)) {
      return LineError(path, line, "loss '" + loss + "' is not a number");
    }
    if (tokens_col >= 0) {
      int64_t tokens = 0;
      if (!ParseStep(cells[static_cast<size_t>(tokens_col)], &tokens)) {
        return LineError(
            path, line,
            "tokens '" + cells[static_cast<size_t>(tokens_col)] + "' is not a whole number");
      }
      p.tokens = tokens;
    }
    curve.points.push_back(std::move(p));
  }
  return curve;
}

}  // namespace preflight::trainer
