#pragma once
// Guarded test buffers: poisoned payload between guard zones, at a chosen misalignment, so that a stray or
// out-of-bounds write cannot hide.

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace KokkosDDT::Test {

constexpr unsigned char kPoison = 0xA5;
constexpr unsigned char kGuard = 0x5A;

class GuardedBuffer {
 public:
  static constexpr std::int64_t kGuardBytes = 64;

  // `bytes` usable bytes at data(), `misalign` (0..63) bytes past a 64-byte boundary.
  explicit GuardedBuffer(std::int64_t bytes, int misalign = 0) : bytes_(bytes) {
    storage_.assign(bytes + 2 * kGuardBytes + 128, static_cast<char>(kGuard));
    const auto addr = reinterpret_cast<std::uintptr_t>(storage_.data());
    const std::int64_t to_boundary = static_cast<std::int64_t>((64 - addr % 64) % 64);
    start_ = to_boundary + kGuardBytes + misalign;
    poison();
  }

  char* data() { return storage_.data() + start_; }
  const char* data() const { return storage_.data() + start_; }
  std::int64_t size() const { return bytes_; }

  void poison() { std::memset(data(), kPoison, bytes_); }

  // A deterministic pattern that never equals the poison byte.
  void fill_pattern(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (std::int64_t i = 0; i < bytes_; ++i) {
      auto v = static_cast<unsigned char>(rng());
      data()[i] = static_cast<char>(v == kPoison ? v + 1 : v);
    }
  }

  bool guards_intact() const {
    for (std::int64_t i = 0; i < start_; ++i)
      if (static_cast<unsigned char>(storage_[i]) != kGuard) return false;
    for (std::size_t i = start_ + bytes_; i < storage_.size(); ++i)
      if (static_cast<unsigned char>(storage_[i]) != kGuard) return false;
    return true;
  }

 private:
  std::vector<char> storage_;
  std::int64_t bytes_;
  std::int64_t start_ = 0;
};

}  // namespace KokkosDDT::Test
