// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Guarded test buffers: poisoned payload between guard zones, at a chosen misalignment, so that a stray or
// out-of-bounds write cannot hide. The bytes live on the host; for a memory space the host cannot read (CudaSpace), a
// device copy of the whole span, guards included, goes up with push() and comes back with pull().

#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

namespace KokkosDDT::Test {

constexpr unsigned char kPoison = 0xA5;
constexpr unsigned char kGuard = 0x5A;

template <class MemSpace = Kokkos::HostSpace>
class GuardedBuffer {
 public:
  static constexpr std::int64_t kGuardBytes = 64;
  static constexpr bool kHost = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;

  // `bytes` usable bytes, `misalign` (0..63) bytes past a 64-byte boundary (on the host and on the device).
  explicit GuardedBuffer(std::int64_t bytes, int misalign = 0)
      : bytes_(bytes), span_(bytes + 2 * kGuardBytes + 64), start_(kGuardBytes + misalign) {
    storage_.assign(span_ + 64, static_cast<char>(kGuard));
    const auto addr = reinterpret_cast<std::uintptr_t>(storage_.data());
    base_ = static_cast<std::int64_t>((64 - addr % 64) % 64);
    if constexpr (!kHost)
      device_ = Kokkos::View<char*, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "guarded"), span_);
    poison();
  }

  char* host() { return storage_.data() + base_ + start_; }
  const char* host() const { return storage_.data() + base_ + start_; }
  // What the execution space reads and writes.
  char* device() {
    if constexpr (kHost)
      return host();
    else
      return device_.data() + start_;
  }
  std::int64_t size() const { return bytes_; }

  void poison() {
    std::memset(host(), kPoison, bytes_);
    push();
  }

  // A deterministic pattern that never equals the poison byte.
  void fill_pattern(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (std::int64_t i = 0; i < bytes_; ++i) {
      auto v = static_cast<unsigned char>(rng());
      host()[i] = static_cast<char>(v == kPoison ? v + 1 : v);
    }
    push();
  }

  void push() {
    if constexpr (!kHost) Kokkos::deep_copy(device_, host_span());
  }
  void pull() {
    if constexpr (!kHost) Kokkos::deep_copy(host_span(), device_);
  }

  bool guards_intact() const {
    const char* s = storage_.data() + base_;
    for (std::int64_t i = 0; i < start_; ++i)
      if (static_cast<unsigned char>(s[i]) != kGuard) return false;
    for (std::int64_t i = start_ + bytes_; i < span_; ++i)
      if (static_cast<unsigned char>(s[i]) != kGuard) return false;
    return true;
  }

 private:
  using HostSpan = Kokkos::View<char*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  HostSpan host_span() { return HostSpan(storage_.data() + base_, static_cast<std::size_t>(span_)); }

  std::vector<char> storage_;
  std::int64_t bytes_, span_, start_, base_ = 0;
  Kokkos::View<char*, MemSpace> device_;
};

}  // namespace KokkosDDT::Test
