// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A checked transfer or copy as a fused record (record_of, record_of_copy), on the host: its descriptor's pointers,
// its tiles, how much of its descriptor its teams copy into scratch (cache_level), and on devices how its teams locate
// positions (locate_on_device: flat, by the type's shape, or walks from below the levels it shares).

#include <cstdint>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Copy.hpp"
#include "KokkosDDT_FusedRecord.hpp"
#include "KokkosDDT_SameShape.hpp"
#include "KokkosDDT_Transfer.hpp"
#include "KokkosDDT_TraversalArgs.hpp"

namespace KokkosDDT::Impl {

// What a record's teams copy into scratch (devices; hosts cache only a pack's nodes): 0 nothing (too large), 1 the
// nodes, 2 the nodes and the lookaside. A copy's record counts both descriptors together.
inline std::int8_t cache_level(std::int64_t nodes, std::int64_t lookaside) {
  const std::int64_t node_bytes = nodes * static_cast<std::int64_t>(sizeof(DescriptorNode));
  if (node_bytes > kMaxScratchDescriptor) return 0;
  return node_bytes + lookaside * static_cast<std::int64_t>(sizeof(std::int64_t)) <= kMaxScratchDescriptor ? 2 : 1;
}

// A descriptor's arrays as a fused request counts them (32-bit).
template <class MemSpace>
void check_fused_descriptor(const Descriptor<MemSpace>& d, const char* where, const char* argument) {
  if (d.nodes.extent(0) > 0x7fffffff || d.lookaside.extent(0) > 0x7fffffff)
    throw_error(ErrorCode::Overflow, where, argument, "has a descriptor too large for a fused request (2^31 entries)");
}

// Devices: the record's walks start below the levels whose one element holds every position it moves (shared_levels):
// its positions and typed buffers (both, for a copy of one shape) move by what those levels add, once, on the host.
// Hosts walk runs from the root.
template <class ExecSpace>
void start_below_shared_levels(FusedRecord& r, const CommittedType& type) {
  if constexpr (!BackendTraits<ExecSpace>::walks_runs) {
    const SharedLevels l = shared_levels(type.nodes.data(), type.lookaside.data(), r.begin, r.end);
    r.start = l.start;
    r.begin -= l.at;
    r.end -= l.at;
    r.typed = address_at(r.typed, l.disp);
    if (r.direction == static_cast<std::int8_t>(Direction::Copy)) r.packed = address_at(r.packed, l.disp);
  }
}

// Devices: whether every walk of a record starting at node `start` reads that node alone and little of it: a terminal
// Contig node (its displacement). Such a record needs no descriptor in the kernel (make_flat), where the copy into
// scratch is a load, a store, the team's barrier and a load again, a large part of what a launch of little work waits
// for. Other walks keep the copy: a terminal Strided node read in place is slower (its walk reads the node's stride and
// divisors for every word), and deeper walks would wait for each level's load.
inline bool walk_reads_one_node(const CommittedType& type, std::int32_t start) {
  const DescriptorNode& n = type.nodes[static_cast<std::size_t>(start)];
  return n.child < 0 && n.kind == LayoutKind::Contig;
}

// Devices: a record whose every walk would read one terminal Contig node (walk_reads_one_node) needs no walk: the
// typed address of position p is that node's displacement plus p, so the node's displacement moves into the typed
// pointer here, once, and the kernel copies words between two contiguous ranges with no descriptor read at all
// (run_flat). What this removes from a one-warp launch is a dependent load and the walk's instructions.
inline void make_flat(FusedRecord& r, const CommittedType& type) {
  const std::int64_t disp = type.nodes[static_cast<std::size_t>(r.start)].disp;
  r.typed = address_at(r.typed, disp);
  if (r.direction == static_cast<std::int8_t>(Direction::Copy)) r.packed = address_at(r.packed, disp);  // (one shape)
  r.start = kFlatRecord;
  r.cache = 0;
}

// Devices: a record of a type with a canonical shape (KokkosDDT_Shape.hpp) and words of 4 bytes or more locates each
// word by the shape's arithmetic (run_shaped): no descriptor in scratch, no barrier, no walk. Its positions and
// buffers stay the whole request's (the shape spans the type's whole stream). Narrower words keep the walk, which
// widens the packed side.
inline bool moves_by_shape(const FusedRecord& r, const CommittedType& type) {
  return type.shape.kind != Shape::Kind::General && r.word >= 4;
}
inline void make_shaped(FusedRecord& r, const Shape* shape) {
  r.shape = shape;
  r.start = kShapedRecord;
  r.cache = 0;
}

// Devices: how a record's teams locate its positions, cheapest first: flat (its walks would read one Contig node),
// by its type's shape, or by walks from below the levels it shares. (For a copy, `type` is both sides' one shape.)
template <class ExecSpace>
void locate_on_device(FusedRecord& r, const CommittedType& type, const Shape* shape) {
  if constexpr (!BackendTraits<ExecSpace>::walks_runs) {
    const FusedRecord whole = r;
    start_below_shared_levels<ExecSpace>(r, type);
    if (walk_reads_one_node(type, r.start)) {
      make_flat(r, type);
    } else if (moves_by_shape(whole, type)) {
      r = whole;
      make_shaped(r, shape);
    }
  } else {
    (void)r, (void)type, (void)shape;
  }
}

// The record of a checked transfer (prepare_transfer) over its descriptor in the execution space's memory, in tiles of
// `tile` bytes; its place in a launch (first_team, slot, ticket) is the caller's. Shared by the fusion queue and fixed
// batches.
template <class ExecSpace>
FusedRecord record_of(const Transfer& t, const Descriptor<typename ExecSpace::memory_space>& d, std::int64_t tile,
                      Direction dir, const char* where) {
  check_fused_descriptor(d, where, "type");
  FusedRecord r;
  r.nodes = d.nodes.data();
  r.lookaside = d.lookaside.data();
  r.node_count = static_cast<std::int32_t>(d.nodes.extent(0));
  r.lookaside_count = static_cast<std::int32_t>(d.lookaside.extent(0));
  r.typed = t.typed;
  r.packed = t.packed;
  r.begin = t.begin;
  r.end = t.end;
  r.tile = tile;
  r.teams = static_cast<std::int32_t>((t.end - t.begin + tile - 1) / tile);  // (callers keep a launch under 2^31)
  r.word = static_cast<std::int8_t>(t.word);
  r.direction = static_cast<std::int8_t>(dir);
  r.cache = cache_level(static_cast<std::int64_t>(d.nodes.extent(0)), r.lookaside_count);
  if (dir != Direction::Copy) locate_on_device<ExecSpace>(r, *t.type, d.shape.data());
  return r;
}

// The record of a checked typed-to-typed copy (prepare_copy) over both sides' descriptors in `space`'s memory. Devices
// cache both in team scratch when together they fit: every position is located in both, and from global memory each
// level of those walks is a dependent load. Where the two types share one shape (same_shape),
// the destination's descriptor is the source's, over the destination's buffer moved by their delta (the destination's
// own is then never copied to the device): devices locate each position once, from below the levels the whole copy
// shares, and cache one descriptor (run_copy knows it by dst_nodes == nodes).
template <class ExecSpace>
FusedRecord record_of_copy(const CopyTransfer& t, const ExecSpace& space, std::int64_t tile, const char* where) {
  using MemSpace = typename ExecSpace::memory_space;
  std::int64_t delta = 0;
  const bool one_shape = same_shape(*t.src_type, *t.dst_type, delta);
  const Descriptor<MemSpace> s = descriptor<MemSpace>(*t.src_type, space);
  const Descriptor<MemSpace> d = one_shape ? s : descriptor<MemSpace>(*t.dst_type, space);
  check_fused_descriptor(s, where, "stype");
  check_fused_descriptor(d, where, "dtype");
  // The source side as a transfer whose "packed" buffer is the destination's typed one; then the destination's
  // descriptor.
  const Transfer source{t.src_type, 0, t.src, one_shape ? address_at(t.dst, delta) : t.dst, t.begin, t.end, t.word};
  FusedRecord r = record_of<ExecSpace>(source, s, tile, Direction::Copy, where);
  if (!one_shape)  // (else the source's alone, as record_of set it)
    r.cache = cache_level(static_cast<std::int64_t>(s.nodes.extent(0) + d.nodes.extent(0)),
                          static_cast<std::int64_t>(s.lookaside.extent(0) + d.lookaside.extent(0)));
  r.dst_nodes = d.nodes.data();
  r.dst_lookaside = d.lookaside.data();
  r.dst_node_count = static_cast<std::int32_t>(d.nodes.extent(0));
  r.dst_lookaside_count = static_cast<std::int32_t>(d.lookaside.extent(0));
  if (one_shape) locate_on_device<ExecSpace>(r, *t.src_type, s.shape.data());
  return r;
}

}  // namespace KokkosDDT::Impl
