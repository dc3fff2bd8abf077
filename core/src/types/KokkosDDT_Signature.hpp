// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Type signatures as composable polynomial hashes modulo the Mersenne prime 2^61 - 1:
//   H(s_0 .. s_{n-1}) = sum_i v(s_i) * B^i,   H(A . C) = H(A) + B^|A| * H(C).
// Repetition doubles, so a count of 10^9 costs ~30 steps and no type is ever expanded.

#include <cstdint>

#include "KokkosDDT_Datatype.hpp"

namespace KokkosDDT::Impl {

TypeSignature signature_of(Primitive p);                               // one primitive (Opaque: use opaque_signature)
TypeSignature opaque_signature(std::int64_t bytes);                    // `bytes` Byte primitives
TypeSignature concat(const TypeSignature& a, const TypeSignature& b);  // a followed by b
TypeSignature repeat(const TypeSignature& s, std::int64_t times);      // s, `times` times

}  // namespace KokkosDDT::Impl
