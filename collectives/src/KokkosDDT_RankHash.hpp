// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A hash of every rank's byte count, sum of bytes_i * h(i) (mod 2^64): what lets a root check its counts against what
// the processes contribute without receiving them one by one (the agreement, the tree's records).

#include <cstdint>

namespace KokkosDDT::Impl {

// An odd 64-bit mix of the rank (splitmix64), so that moving bytes between ranks changes the hash.
inline std::uint64_t rank_hash(std::uint64_t i) {
  std::uint64_t z = i + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (z ^ (z >> 31)) | 1;
}
inline std::int64_t bytes_hash(std::int64_t bytes, int rank) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(bytes) * rank_hash(static_cast<std::uint64_t>(rank)));
}

}  // namespace KokkosDDT::Impl
