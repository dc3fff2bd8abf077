// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Random typed messages for the multi-rank tests: a random nested type and count, a buffer that holds its footprint
// with guard bytes on both sides, the bytes each rank fills it with, and what a receive must leave in a poisoned
// buffer (computed on the host by packing the sender's bytes and unpacking them).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <Kokkos_Core.hpp>

#include "KokkosDDT.hpp"
#include "support/RandomTypes.hpp"

namespace KokkosDDT::Test {

constexpr char kPoison = 0x5a;

// The buffer layout of one message: footprint plus guards, n bytes, the typed origin at `origin`.
struct MessageCase {
  Datatype type;
  std::int64_t count = 0, origin = 0;
  std::size_t n = 0;
  bool mpich_safe = true;
  std::int64_t bytes() const { return count * type.size(); }
};

inline MessageCase make_message_case(TypeGenerator& gen, std::int64_t max_count = 3) {
  MessageCase c;
  const RandomType r = gen.next();
  c.type = r.type;
  c.mpich_safe = r.mpich_safe;
  c.type.commit();
  c.count = gen.pick(0, max_count);
  const std::int64_t reach = std::max<std::int64_t>(0, (c.count - 1) * c.type.extent());
  const std::int64_t lo = std::min<std::int64_t>(0, (c.count - 1) * c.type.extent()) + c.type.true_lb();
  c.origin = std::max<std::int64_t>(0, -lo) + 16;
  c.n = static_cast<std::size_t>(c.origin + c.type.true_lb() + c.type.true_extent() + reach + 32);
  if (c.type.true_lb() < 0) c.n += static_cast<std::size_t>(-c.type.true_lb());
  return c;
}

// The bytes rank `r` fills its typed send buffer with (`salt` tells messages of one round apart).
inline std::vector<char> pattern(int r, std::size_t n, int salt = 0) {
  std::vector<char> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<char>((i * 131 + static_cast<std::size_t>(r) * 17 + static_cast<std::size_t>(salt) * 29 + 7) &
                             0xff);
  return v;
}

// What a receive of c into a poisoned buffer must leave when the sender's buffer held `sent`.
inline std::vector<char> expected_receive(const MessageCase& c, const std::vector<char>& sent) {
  std::vector<char> packed(static_cast<std::size_t>(c.bytes()) + 1), out(c.n, kPoison);
  Kokkos::DefaultHostExecutionSpace host;
  pack(host, sent.data() + c.origin, c.count, c.type, packed.data(), c.bytes());
  unpack(host, packed.data(), c.bytes(), out.data() + c.origin, c.count, c.type);
  return out;
}

// A buffer in MemSpace holding `bytes`.
template <class MemSpace>
Kokkos::View<char*, MemSpace> upload(const std::vector<char>& bytes) {
  Kokkos::View<char*, MemSpace> v("buffer", bytes.size());
  auto h = Kokkos::create_mirror_view(v);
  std::memcpy(h.data(), bytes.data(), bytes.size());
  Kokkos::deep_copy(v, h);
  return v;
}

template <class View>
std::vector<char> download(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<char>(h.data(), h.data() + h.size());
}

}  // namespace KokkosDDT::Test
