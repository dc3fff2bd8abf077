// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The one exception type KokkosDDT throws. Every check runs before anything is launched or written, so a caught
// Error means the destination is untouched.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace KokkosDDT {

enum class ErrorCode {
  InvalidArgument,  // a constructor or entry-point argument out of its domain (negative count, bad subarray, ...)
  Overflow,         // a size, extent or offset that does not fit in 64 bits
  NullDatatype,     // a default-constructed or freed Datatype
  NotCommitted,     // pack/unpack with a type that was never committed
  BufferTooSmall,   // a buffer cannot hold the bytes or the typed extent asked for
  NullPointer,      // a null pointer where bytes must be read or written
  Inaccessible,     // memory the execution space cannot access
  Unsupported,      // a valid request this build cannot serve (e.g. an MPI combiner without an equivalent)
  MPI,              // an MPI call failed
  Transport,        // another transport failed (an NCCL call, or an error NCCL reported asynchronously)
  Backend,          // the backend's runtime refused work (e.g. a CUDA kernel launch failed)
  Timeout,          // a wait passed its deadline (a plan's timeout): a peer is late, stalled or gone
  Internal          // an internal invariant failed: a bug in KokkosDDT (please report it with the message)
};

const char* to_string(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  // where: the API function ("KokkosDDT::vector"); argument: the offending argument's name ("blocklength").
  Error(ErrorCode code, std::string where, std::string argument, const std::string& message);

  ErrorCode code() const noexcept { return code_; }
  const std::string& where() const noexcept { return where_; }
  const std::string& argument() const noexcept { return argument_; }

 private:
  ErrorCode code_;
  std::string where_;
  std::string argument_;
};

namespace Impl {

[[noreturn]] void throw_error(ErrorCode code, const std::string& where, const std::string& argument,
                              const std::string& message);

// Checked 64-bit arithmetic: every size, extent, bound and offset a type description or its commit produces goes
// through these (Overflow names `argument`). Inline: enqueues and launches use them on their hot path; only the throw
// is out of line.
[[noreturn]] void throw_overflow(std::int64_t a, const char* op, std::int64_t b, const char* where,
                                 const char* argument);

inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* where, const char* argument) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(a, " + ", b, where, argument);
  return r;
}

inline std::int64_t checked_sub(std::int64_t a, std::int64_t b, const char* where, const char* argument) {
  std::int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw_overflow(a, " - ", b, where, argument);
  return r;
}

inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* where, const char* argument) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow(a, " * ", b, where, argument);
  return r;
}

// (`argument`: a const char* or a std::string, turned into a string only when thrown: the check runs on every pack.)
template <class Name>
void require_nonnegative(std::int64_t value, const char* where, const Name& argument) {
  if (value < 0)
    throw_error(ErrorCode::InvalidArgument, where, argument,
                "is " + std::to_string(value) + " but must be non-negative");
}

}  // namespace Impl
}  // namespace KokkosDDT
