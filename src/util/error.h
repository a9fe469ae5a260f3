// Errors as values. Every stage returns Expected<T>; only the CLI turns an
// Error into a message and an exit code. An error says where: the file, the
// byte offset and the record or section being read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace goheap {

// What kind of failure an Error is: it decides how a front end answers it
// (the CLI's exit code, the HTTP status), never what the message says.
enum class ErrorKind : uint8_t {
  BadInput,    // what was read is not what it should be: a corrupt dump, an unknown format
  NeedsInput,  // the user must give something else: a wrong parameter, a missing executable
  NotFound,    // what was asked about is not there: no object at an address
  Io,          // the system could not read or write: a missing file, a full disk
};

class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}
  Error(ErrorKind kind, std::string message) : message_(std::move(message)), kind_(kind) {}

  // "offset 1234 (object record): truncated uvarint".
  static Error atOffset(uint64_t offset, std::string_view context, std::string_view what) {
    std::string m = "at byte offset " + std::to_string(offset);
    if (!context.empty()) m += " (" + std::string(context) + ")";
    m += ": ";
    m += what;
    return Error(std::move(m));
  }

  const std::string& message() const { return message_; }
  ErrorKind kind() const { return kind_; }

  // An error the user fixes by giving something else on the command line (a
  // core's executable that cannot be found, a parameter out of range),
  // rather than a failure to read: the CLI exits 2 for it, as for a usage
  // error, and the HTTP API answers 400.
  static Error needsInput(std::string message) {
    return Error(ErrorKind::NeedsInput, std::move(message));
  }
  bool needsInput() const { return kind_ == ErrorKind::NeedsInput; }
  static Error notFound(std::string message) {
    return Error(ErrorKind::NotFound, std::move(message));
  }
  static Error io(std::string message) { return Error(ErrorKind::Io, std::move(message)); }

  // The parameter at fault, as the HTTP API names it ("min_bytes"), for
  // scripts; empty when the error is not about one.
  const std::string& parameter() const { return parameter_; }
  Error&& atParameter(std::string_view name) && {
    parameter_ = name;
    return std::move(*this);
  }

  // Prefixes the message with the name of the file it concerns.
  Error inFile(std::string_view path) const {
    Error e = *this;
    e.message_ = std::string(path) + ": " + message_;
    return e;
  }

 private:
  std::string message_;
  ErrorKind kind_ = ErrorKind::BadInput;
  std::string parameter_;
};

// Either a value or an Error; the caller must look before it uses the value.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  explicit operator bool() const { return std::holds_alternative<T>(state_); }
  bool ok() const { return std::holds_alternative<T>(state_); }

  T& operator*() { return std::get<T>(state_); }
  const T& operator*() const { return std::get<T>(state_); }
  T* operator->() { return &std::get<T>(state_); }
  const T* operator->() const { return &std::get<T>(state_); }
  T take() { return std::move(std::get<T>(state_)); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// For functions that return nothing but may fail.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  static Status success() { return Status(); }
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

// Declares `declaration` from an Expected's value, or returns its Error from
// the enclosing function (which returns an Expected or a Status):
//   GOHEAP_TRY(TopQuery q, readTop(values));
// The first argument may instead be an lvalue to assign, as in
// GOHEAP_TRY(b.container_, readContainer(bytes)). One use a line.
#define GOHEAP_TRY(declaration, expression) \
  GOHEAP_TRY_IMPL_(GOHEAP_TRY_NAME_(goheap_try_, __LINE__), declaration, expression)
#define GOHEAP_TRY_NAME_(a, b) GOHEAP_TRY_CONCAT_(a, b)
#define GOHEAP_TRY_CONCAT_(a, b) a##b
#define GOHEAP_TRY_IMPL_(tmp, declaration, expression) \
  auto tmp = (expression);                             \
  if (!tmp) return tmp.error();                        \
  declaration = tmp.take()

}  // namespace goheap
