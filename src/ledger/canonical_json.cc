#include "ledger/canonical_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace preflight::ledger {
namespace {

using nlohmann::json;

void AppendString(std::string_view s, std::string& out) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// Shortest round-trip digits come from std::to_chars (exact, unlike a Grisu2 printer, which
// is not always shortest); the layout follows Python's float repr.
void AppendDouble(double v, std::string& out) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  if (std::signbit(v)) out += '-';
  char buf[64];
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof(buf), std::fabs(v), std::chars_format::scientific);
  (void)ec;                              // 64 bytes always hold a double in scientific form.
  std::string_view sci(buf, end - buf);  // "d[.ddd]e[+-]XX"
  size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits += c;
  }
  // value = 0.<digits> * 10^decpt
  int decpt = std::atoi(std::string(sci.substr(e_pos + 1)).c_str()) + 1;
  const int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (n > 1) {
      out += '.';
      out.append(digits, 1);
    }
    char exp[16];
    std::snprintf(exp, sizeof(exp), "e%c%02d", decpt - 1 < 0 ? '-' : '+', std::abs(decpt - 1));
    out += exp;
  } else if (decpt <= 0) {
    out += "0.";
    out.append(-decpt, '0');
    out += digits;
  } else if (decpt < n) {
    out.append(digits, 0, decpt);
    out += '.';
    out.append(digits, decpt);
  } else {
    out += digits;
    out.append(decpt - n, '0');
    out += ".0";
  }
}

void AppendValue(const json& v, std::string& out) {
  switch (v.type()) {
    case json::value_t::null:
      out += "null";
      break;
    case json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      break;
    case json::value_t::number_integer:
      out += std::to_string(v.get<int64_t>());
      break;
    case json::value_t::number_unsigned:
      out += std::to_string(v.get<uint64_t>());
      break;
    case json::value_t::number_float:
      AppendDouble(v.get<double>(), out);
      break;
    case json::value_t::string:
      AppendString(v.get_ref<const std::string&>(), out);
      break;
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& e : v) {
        if (!first) out += ',';
        first = false;
        AppendValue(e, out);
      }
      out += ']';
      break;
    }
    case json::value_t::object: {
      // nlohmann::json keeps objects in a std::map<std::string, ...>: iteration is already in
      // byte order of the keys, which for UTF-8 is code-point order.
      out += '{';
      bool first = true;
      for (const auto& [key, e] : v.items()) {
        if (!first) out += ',';
        first = false;
        AppendString(key, out);
        out += ':';
        AppendValue(e, out);
      }
      out += '}';
      break;
    }
    case json::value_t::binary:
    case json::value_t::discarded:
      out += "null";  // Never produced by parsing JSON text; no canonical form.
      break;
  }
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    int len;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (int k = 1; k < len; ++k) {
      unsigned char cc = s[i + k];
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Reject overlong forms, surrogates and code points past U+10FFFF.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      return false;
    }
    i += len;
  }
  return true;
}

Status Check(const json& v, const json::json_pointer& where) {
  switch (v.type()) {
    case json::value_t::number_float:
      if (!std::isfinite(v.get<double>())) {
        return Status::InvalidArgument("receipt value at '" + where.to_string() +
                                       "' is not a finite number; JSON cannot hold NaN or "
                                       "infinity: record it as null or a string");
      }
      return Status::Ok();
    case json::value_t::string:
      if (!IsValidUtf8(v.get_ref<const std::string&>())) {
        return Status::InvalidArgument("receipt string at '" + where.to_string() +
                                       "' is not valid UTF-8");
      }
      return Status::Ok();
    case json::value_t::array:
      for (size_t i = 0; i < v.size(); ++i) PF_RETURN_IF_ERROR(Check(v[i], where / i));
      return Status::Ok();
    case json::value_t::object:
      for (const auto& [key, e] : v.items()) {
        if (!IsValidUtf8(key)) {
          return Status::InvalidArgument("receipt key under '" + where.to_string() +
                                         "' is not valid UTF-8");
        }
        PF_RETURN_IF_ERROR(Check(e, where / key));
      }
      return Status::Ok();
    case json::value_t::binary:
      return Status::InvalidArgument("receipt value at '" + where.to_string() +
                                     "' is binary, which JSON text cannot hold");
    default:
      return Status::Ok();
  }
}

}  // namespace

std::string CanonicalJson(const nlohmann::json& value) {
  std::string out;
  AppendValue(value, out);
  return out;
}

Status CheckCanonicalizable(const nlohmann::json& value) {
  return Check(value, nlohmann::json::json_pointer());
}

}  // namespace preflight::ledger
