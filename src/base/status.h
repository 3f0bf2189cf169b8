#pragma once
// Errors are values. Library code returns Status or Result<T>; only src/cli decides to exit.
//
// A Status carries a kind and a message. Messages name the file and the line (or byte offset)
// and say what to do; the CLI prints them as they are. Kinds map to exit codes in the CLI:
// InvalidArgument/NotFound/Corruption (bad input or usage) -> 2, IOError/Internal -> 1.

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace preflight {

class [[nodiscard]] Status {
 public:
  enum class Kind { kOk, kInvalidArgument, kNotFound, kCorruption, kIOError, kInternal };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(Kind::kInvalidArgument, std::move(msg));
  }
  static Status NotFound(std::string msg) { return Status(Kind::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Kind::kCorruption, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Kind::kIOError, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Kind::kInternal, std::move(msg)); }

  bool ok() const { return kind_ == Kind::kOk; }
  Kind kind() const { return kind_; }
  const std::string& message() const { return message_; }

  // True when the error is the user's input or usage (exit code 2), not the machine's.
  bool IsBadInput() const {
    return kind_ == Kind::kInvalidArgument || kind_ == Kind::kNotFound ||
           kind_ == Kind::kCorruption;
  }
  int ExitCode() const { return ok() ? 0 : (IsBadInput() ? 2 : 1); }

 private:
  Status(Kind kind, std::string msg) : kind_(kind), message_(std::move(msg)) {}
  Kind kind_ = Kind::kOk;
  std::string message_;
};

namespace internal {
[[noreturn]] inline void DieOnEmptyResult(const std::string& message) {
  std::fprintf(stderr, "preflight: internal error: value() of a failed Result: %s\n",
               message.c_str());
  std::abort();
}
}  // namespace internal

// A value or the Status that explains why there is none.
// value(), * and -> on a Result that holds no value are programming errors: they print the
// Status and abort rather than read an empty optional.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return Checked(); }
  const T& value() const& { return Checked(); }
  T&& value() && { return std::move(Checked()); }
  T* operator->() { return &Checked(); }
  const T* operator->() const { return &Checked(); }
  T& operator*() { return Checked(); }
  const T& operator*() const { return Checked(); }

 private:
  T& Checked() {
    if (!value_) internal::DieOnEmptyResult(status_.message());
    return *value_;
  }
  const T& Checked() const {
    if (!value_) internal::DieOnEmptyResult(status_.message());
    return *value_;
  }

  std::optional<T> value_;
  Status status_;
};

}  // namespace preflight

// Early-return ladder helpers.
#define PF_RETURN_IF_ERROR(expr)         \
  do {                                   \
    ::preflight::Status _pf_st = (expr); \
    if (!_pf_st.ok()) return _pf_st;     \
  } while (0)

// PF_ASSIGN_OR_RETURN(lhs, expr) declares or assigns lhs, so it is several statements and cannot
// be wrapped in do/while. Always brace it: under an unbraced `if` its hidden temporary would be
// scoped to the if, and the lines after it fail to compile (never a silent wrong branch).
#define PF_CONCAT_INNER(a, b) a##b
#define PF_CONCAT(a, b) PF_CONCAT_INNER(a, b)
#define PF_ASSIGN_OR_RETURN(lhs, expr)                                                    \
  auto PF_CONCAT(_pf_res_, __LINE__) = (expr);                                            \
  if (!PF_CONCAT(_pf_res_, __LINE__).ok()) return PF_CONCAT(_pf_res_, __LINE__).status(); \
  lhs = std::move(PF_CONCAT(_pf_res_, __LINE__)).value()
