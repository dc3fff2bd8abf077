// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A fused launch's shape, decided on the host from its records: words per thread (launch_words_per_thread,
// widen_tile), and what the records share (LaunchKind: the uniform kernels, the team size).

#include <algorithm>
#include <cstdint>

#include "KokkosDDT_Combine.hpp"
#include "KokkosDDT_FusedRecord.hpp"

namespace KokkosDDT::Impl {

// Devices: words per thread for a launch of `words` words on a device that holds `threads` of the fused kernel at once
// (BackendTraits::fused_threads): one, until the launch outnumbers them; then enough that the launch is one wave. Each
// record was tiled on its own (LaunchShape::tile_bytes: one word per thread until the record alone fills the device),
// but a halo's records together can hold several times the device's threads (many fields of a large grid), and a fused
// thread's setup (its record, the descriptor copied into scratch, the barrier) is most of its instructions when it
// moves one word.
inline std::int64_t launch_words_per_thread(std::int64_t words, std::int64_t threads) {
  return threads > 0 && words > threads ? (words + threads - 1) / threads : 1;
}

// Words per thread of a chain of `members` records (FusedBatch::begin_chain) in a launch of `per_thread`: a chain's
// team moves each member's words over the same cells one after another, so its threads move `members` times their
// tile's words; the chain's tile is that many times narrower (never under one word), so that every team of the launch
// does about the same work. (Tiled alike, the teams of a halo scatter's corner and edge chains, of 7 and 3 members,
// ran long after the face chains' had ended: half the device's cycles idle at 128^3.)
inline std::int64_t chain_words_per_thread(std::int64_t per_thread, std::int64_t members) {
  return std::max<std::int64_t>(1, per_thread / std::max<std::int64_t>(1, members));
}

// Record r's tile widened to `per_thread` words per thread of `team_size`-thread teams (never narrowed, never past its
// bytes); returns its teams.
inline std::int64_t widen_tile(FusedRecord& r, std::int64_t per_thread, int team_size) {
  const std::int64_t bytes = r.end - r.begin;
  if (per_thread > 1) {
    const std::int64_t wanted = std::int64_t(team_size) * r.word * per_thread;
    r.tile = std::max(r.tile, std::min(wanted, (bytes + r.word - 1) / r.word * r.word));
    r.teams = static_cast<std::int32_t>((bytes + r.tile - 1) / r.tile);  // (fewer than before)
  }
  return r.teams;
}

// What a launch's records share, for the uniform kernels: their direction and word size, or word 0 where they differ
// (or where there are none); and the most words one of their teams moves, for the team size. The caller adds each
// record as it places it in the launch, on the host, wherever the kernel will read them from.
class LaunchKind {
 public:
  void add(const FusedRecord& r) {
    if (count_++ == 0) {
      direction_ = r.direction;
      word_ = r.word;
    } else if (r.direction != direction_ || r.word != word_) {
      word_ = 0;
    }
    if (r.direction == static_cast<std::int8_t>(Direction::Combine)) {
      combining_word_ = combining_++ == 0 ? r.word : std::min<std::int8_t>(combining_word_, r.word);
      widest_element_ = std::max(widest_element_, element_size(static_cast<Primitive>(r.element)));
    }
    flat_ += r.start == kFlatRecord;
    shaped_ += r.start == kShapedRecord;
    const std::int64_t bytes = r.end - r.begin < r.tile ? r.end - r.begin : r.tile;
    const std::int64_t words = (bytes + r.word - 1) / r.word;
    if (words > widest_) widest_ = words;
  }
  Direction direction() const { return static_cast<Direction>(direction_); }
  int word() const { return count_ > 0 ? word_ : 0; }
  // Combining records (Direction::Combine) run in launches of their own (the queue and the batches keep them apart):
  // the combining kernels, whatever their word sizes.
  bool combining() const { return combining_ > 0; }
  bool all_combining() const { return combining_ == count_; }
  // The word a combining launch's kernel runs every record with: the smallest of theirs (any power of two below a
  // record's word divides its runs as the word does), where it holds whole elements of every record's; else 0 (each
  // record's own word, chosen in the kernel: a rarer launch, whose kernel holds every word size's code).
  int combining_word() const { return combining_ > 0 && combining_word_ >= widest_element_ ? combining_word_ : 0; }
  Locating locating() const {
    return flat_ == count_ ? Locating::Flat : flat_ + shaped_ == count_ ? Locating::Shapes : Locating::Walks;
  }
  // Threads per team: the backend's, or fewer where no team has that many words to move (whole warps). A team's
  // threads take its words in turn, so any size is correct; a tiny launch's one busy warp then waits at the team's
  // barriers for no idle ones, the largest of its stalls.
  template <class Backend>
  int team_size() const {
    const std::int64_t g = Backend::team_granule;
    const std::int64_t wanted = (widest_ + g - 1) / g * g;
    return static_cast<int>(wanted < g ? g : wanted < Backend::team_size ? wanted : Backend::team_size);
  }

 private:
  std::int64_t count_ = 0, widest_ = 0, flat_ = 0, shaped_ = 0, combining_ = 0;
  std::int8_t direction_ = 0, word_ = 0, combining_word_ = 0;
  int widest_element_ = 0;
};

}  // namespace KokkosDDT::Impl
