// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Error.hpp"

namespace KokkosDDT {

const char* to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::InvalidArgument:
      return "invalid argument";
    case ErrorCode::Overflow:
      return "overflow";
    case ErrorCode::NullDatatype:
      return "null datatype";
    case ErrorCode::NotCommitted:
      return "datatype not committed";
    case ErrorCode::BufferTooSmall:
      return "buffer too small";
    case ErrorCode::NullPointer:
      return "null pointer";
    case ErrorCode::Inaccessible:
      return "inaccessible memory space";
    case ErrorCode::Unsupported:
      return "unsupported";
    case ErrorCode::MPI:
      return "MPI error";
    case ErrorCode::Transport:
      return "transport error";
    case ErrorCode::Backend:
      return "backend error";
    case ErrorCode::Timeout:
      return "timeout";
    case ErrorCode::Internal:
      return "internal error";
  }
  return "unknown error";
}

static std::string format(ErrorCode code, const std::string& where, const std::string& argument,
                          const std::string& message) {
  std::string text = where + ": " + to_string(code);
  if (!argument.empty()) text += ": argument '" + argument + "'";
  if (!message.empty()) text += " " + message;
  return text;
}

Error::Error(ErrorCode code, std::string where, std::string argument, const std::string& message)
    : std::runtime_error(format(code, where, argument, message)),
      code_(code),
      where_(std::move(where)),
      argument_(std::move(argument)) {}

namespace Impl {

void throw_error(ErrorCode code, const std::string& where, const std::string& argument, const std::string& message) {
  throw Error(code, where, argument, message);
}

void throw_overflow(std::int64_t a, const char* op, std::int64_t b, const char* where, const char* argument) {
  throw_error(ErrorCode::Overflow, where, argument,
              "makes " + std::to_string(a) + op + std::to_string(b) + " overflow 64 bits");
}

}  // namespace Impl
}  // namespace KokkosDDT
