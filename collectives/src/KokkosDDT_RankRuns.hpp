// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The root's side of a gather or scatter: which ranks' blocks a message carries, and how those blocks sit in the
// root's buffer. A message from (or to) a subtree carries the blocks of its cube's ranks in rank order, minus the
// cubes nested in it that went direct; the root moves it in one typed operation straight between the wire and the
// user's buffer: the user's type with the summed count where the blocks are adjacent in rank order (the paper's
// prototype case), otherwise one hindexed KokkosDDT type over the user's type (zero intermediate copies).

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <KokkosDDT.hpp>

#include "KokkosDDT_GatherTree.hpp"

namespace KokkosDDT::Impl {

// A cube's ranks [lo, hi] as seen by the root.
struct RankRange {
  int lo, hi;
};

// owner[j] = index of the smallest range holding rank j (-1: none, e.g. the root). Ranges are cubes, hence nested or
// disjoint; assigning the larger ones first leaves every rank to the smallest.
inline std::vector<int> range_owners(int p, const std::vector<RankRange>& ranges) {
  std::vector<int> order(ranges.size()), owner(static_cast<std::size_t>(p), -1);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return ranges[a].hi - ranges[a].lo > ranges[b].hi - ranges[b].lo; });
  for (int r : order)
    for (int j = ranges[r].lo; j <= ranges[r].hi; ++j) owner[j] = r;
  return owner;
}

// Where one message's blocks go (gather) or come from (scatter) in the root's buffer: `count` x `type` at `offset`.
struct RootPlacement {
  std::int64_t offset = 0;
  std::int64_t count = 0;
  Datatype type;
  std::int64_t bytes = 0;
};

// The blocks of `ranks` (ascending): counts[j] x type at displs[j] extents.
inline RootPlacement root_placement(const std::vector<std::int64_t>& counts, const std::vector<std::int64_t>& displs,
                                    const std::vector<int>& ranks, const Datatype& type, const char* where) {
  RootPlacement out;
  const std::int64_t extent = type.extent();
  bool adjacent = true;
  std::int64_t next = 0, first = -1, total = 0;
  for (int j : ranks) {
    if (counts[j] == 0) continue;
    if (first < 0) {
      first = j;
    } else if (displs[j] != next) {
      adjacent = false;
    }
    next = displs[j] + counts[j];
    total += counts[j];
  }
  out.bytes = checked_mul(total, type.size(), where, "recvcounts");
  if (first < 0) return out;
  if (adjacent) {
    out.offset = checked_mul(displs[first], extent, where, "displs");
    out.count = total;
    out.type = type;
    return out;
  }
  std::vector<std::int64_t> lengths, offsets;
  for (int j : ranks) {
    if (counts[j] == 0) continue;
    lengths.push_back(counts[j]);
    offsets.push_back(checked_mul(displs[j], extent, where, "displs"));
  }
  out.type = hindexed(lengths, offsets, type);
  out.type.commit();
  out.count = 1;
  return out;
}

// The hash a cube's record carries, from the root's counts.
inline std::int64_t counts_hash(const std::vector<std::int64_t>& counts, std::int64_t type_size, int lo, int hi) {
  std::uint64_t h = 0;
  for (int j = lo; j <= hi; ++j) h += static_cast<std::uint64_t>(bytes_hash(counts[j] * type_size, j));
  return static_cast<std::int64_t>(h);
}

inline std::int64_t counts_bytes(const std::vector<std::int64_t>& counts, std::int64_t type_size, int lo, int hi) {
  std::int64_t b = 0;
  for (int j = lo; j <= hi; ++j) b += counts[j] * type_size;
  return b;
}

// The root's arguments: p counts and p displacements, no negative count. Empty string: fine.
inline std::string root_arguments_problem(int p, const std::vector<std::int64_t>& counts,
                                          const std::vector<std::int64_t>& displs, const Datatype& type,
                                          const char* counts_name) {
  if (static_cast<int>(counts.size()) != p)
    return std::string(counts_name) + " has " + std::to_string(counts.size()) + " entries for " + std::to_string(p) +
           " processes";
  if (static_cast<int>(displs.size()) != p)
    return "displs has " + std::to_string(displs.size()) + " entries for " + std::to_string(p) + " processes";
  for (int j = 0; j < p; ++j)
    if (counts[j] < 0)
      return std::string(counts_name) + "[" + std::to_string(j) + "] is " + std::to_string(counts[j]) +
             " but must be non-negative";
  std::int64_t sum = 0;
  const std::int64_t size = type.size(), most_count = (std::int64_t(1) << 62) / std::max<std::int64_t>(size, 1),
                     most_displ = (std::int64_t(1) << 62) / std::max<std::int64_t>(std::abs(type.extent()), 1);
  for (int j = 0; j < p; ++j) {
    if (counts[j] > most_count || std::abs(displs[j]) > most_displ)
      return "block " + std::to_string(j) + " overflows 64-bit byte offsets";
    sum += counts[j] * size;
    if (sum > (std::int64_t(1) << 62)) return std::string(counts_name) + " sum to more than 2^62 bytes";
  }
  return {};
}

// Gather writes every block once: the blocks' byte ranges must not overlap. Blocks are compared by their true
// footprints first (sorted, linear); only where footprints overlap are the bytes each block writes counted exactly
// (blocks of a type with holes may interleave). Empty string: no overlap.
inline std::string overlap_problem(const std::vector<std::int64_t>& counts, const std::vector<std::int64_t>& displs,
                                   const Datatype& type) {
  struct Span {
    std::int64_t lo, hi;
    int rank;
  };
  const std::int64_t ext = type.extent(), lb = type.true_lb(), true_ext = type.true_extent();
  auto span_of = [&](std::size_t j) {
    const std::int64_t a = displs[j] * ext, b = (displs[j] + counts[j] - 1) * ext;
    return Span{std::min(a, b) + lb, std::max(a, b) + lb + true_ext, static_cast<int>(j)};
  };
  // The common layouts first, without an allocation: blocks in rank order, or in reverse, each clear of the last.
  if (type.size() == 0) return {};
  bool up = true, down = true;
  Span last{0, 0, -1};
  for (std::size_t j = 0; j < counts.size() && (up || down); ++j) {
    if (counts[j] == 0) continue;
    const Span s = span_of(j);
    if (last.rank >= 0) up = up && s.lo >= last.hi, down = down && s.hi <= last.lo;
    last = s;
  }
  if (up || down) return {};
  std::vector<Span> spans;
  spans.reserve(counts.size());
  for (std::size_t j = 0; j < counts.size(); ++j)
    if (counts[j] != 0) spans.push_back(span_of(j));
  std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) { return x.lo < y.lo; });
  bool footprints_overlap = false;
  std::int64_t reach = spans.empty() ? 0 : spans[0].hi;
  for (std::size_t s = 1; s < spans.size() && !footprints_overlap; ++s) {
    footprints_overlap = spans[s].lo < reach;
    reach = std::max(reach, spans[s].hi);
  }
  if (!footprints_overlap) return {};
  // Exact: count the bytes each block writes (unpack ones into a zeroed image of its footprint).
  const std::int64_t lo = spans.front().lo;
  std::int64_t hi = lo;
  for (const Span& s : spans) hi = std::max(hi, s.hi);
  std::vector<unsigned char> writer(static_cast<std::size_t>(hi - lo), 0);
  std::vector<int> who(static_cast<std::size_t>(hi - lo), -1);
  Kokkos::DefaultHostExecutionSpace host;
  for (const Span& s : spans) {
    const std::int64_t bytes = counts[s.rank] * type.size();
    std::vector<unsigned char> ones(static_cast<std::size_t>(bytes), 1),
        image(static_cast<std::size_t>(s.hi - s.lo), 0);
    // image[b] is byte s.lo + b of recvbuf; the block starts at byte displs * extent.
    unpack(host, ones.data(), bytes, image.data() - s.lo + displs[s.rank] * ext, counts[s.rank], type);
    for (std::int64_t b = 0; b < s.hi - s.lo; ++b) {
      if (!image[b]) continue;
      const std::int64_t at = s.lo - lo + b;
      if (writer[at])
        return "the blocks of ranks " + std::to_string(who[at]) + " and " + std::to_string(s.rank) +
               " overlap (both write byte " + std::to_string(s.lo + b) + " of recvbuf)";
      writer[at] = 1;
      who[at] = s.rank;
    }
  }
  return {};
}

}  // namespace KokkosDDT::Impl
