// Errors as values. Every stage returns Expected<T>; only the CLI turns an
// Error into a message and an exit code. An error says where: the file, the
// byte offset and the record or section being read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace goheap {

class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}

  // "offset 1234 (object record): truncated uvarint".
  static Error atOffset(uint64_t offset, std::string_view context, std::string_view what) {
    std::string m = "at byte offset " + std::to_string(offset);
    if (!context.empty()) m += " (" + std::string(context) + ")";
    m += ": ";
    m += what;
    return Error(std::move(m));
  }

  const std::string& message() const { return message_; }

  // An error the user fixes by giving something else on the command line (a
  // core's executable that cannot be found), rather than a failure to read:
  // the CLI exits 2 for it, as for a usage error.
  static Error needsInput(std::string message) {
    Error e(std::move(message));
    e.needs_input_ = true;
    return e;
  }
  bool needsInput() const { return needs_input_; }

  // Prefixes the message with the name of the file it concerns.
  Error inFile(std::string_view path) const {
    Error e(std::string(path) + ": " + message_);
    e.needs_input_ = needs_input_;
    return e;
  }

 private:
  std::string message_;
  bool needs_input_ = false;
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

}  // namespace goheap
