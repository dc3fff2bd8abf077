// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One request of a fused launch as the kernel reads it (FusedRecord); what the host decides for it is in
// KokkosDDT_FusedRecordOf.hpp.

#include <cstdint>

#include "KokkosDDT_Descriptor.hpp"
#include "KokkosDDT_Shape.hpp"

namespace KokkosDDT::Impl {

// One request of a fused launch, as the kernel reads it: from the kernel's parameters for small launches, else from the
// execution space's memory. Kept compact (128 bytes) so that a halo's worth of records fits the parameter space.
// A copy (Direction::Copy) reads `typed` through `nodes` and writes `packed`, the destination's typed buffer, through
// `dst_nodes`: one request per message a process sends itself, with no packed buffer between.
struct FusedRecord {
  const DescriptorNode* nodes = nullptr;  // the request's descriptor, in the execution space's memory
  const std::int64_t* lookaside = nullptr;
  char* typed = nullptr;
  char* packed = nullptr;
  std::int64_t begin = 0, end = 0, tile = 0;  // stream bytes [begin, end), in tiles of `tile` bytes
  std::uint64_t ticket = 0;                   // written to flags[slot] once the request is done
  const DescriptorNode* dst_nodes = nullptr;  // a copy's destination descriptor
  const std::int64_t* dst_lookaside = nullptr;
  const Shape* shape = nullptr;  // devices: the type's shape, in the execution space's memory (a shaped record's)
  // Teams of the launch's earlier requests (a launch has < 2^31): ascending, each request's teams its own, but for a
  // chain's (FusedBatch::begin_chain), which share theirs.
  std::int32_t first_team = 0;
  std::int32_t teams = 0;  // this request's
  std::int32_t node_count = 0, slot = 0;
  std::int32_t lookaside_count = 0;  // (a committed descriptor's arrays are checked to fit)
  std::int32_t dst_node_count = 0, dst_lookaside_count = 0;
  // Devices: the node every walk starts at, below the levels the whole request shares (start_below_shared_levels), or
  // kFlatRecord, or kShapedRecord.
  std::int32_t start = 0;
  std::int8_t word = 1, direction = 0, cache = 0;  // cache: see cache_level
  // Devices: 1 where the record is its chain's last (FusedBatch::begin_chain) and the chain combines in one pass
  // in its launch (FusedTile::chain_in_one_pass, decided once as the batch is built), else 0.
  std::int8_t one_pass = 0;
  std::int16_t gate = -1;  // the counter its teams wait for before they write (FusedBatch::gate_on; -1: none)
  // Direction::Combine: the operation (an Op) and the Primitive of every element (its word holds whole elements).
  std::int8_t op = 0, element = 0;
};
static_assert(sizeof(FusedRecord) == 128, "FusedRecord: a halo's records must fit the kernel's parameters");

// A record's `start` when it is flat: its stream positions are its typed buffer's bytes, in order.
constexpr std::int32_t kFlatRecord = -1;
// A record's `start` when its teams locate positions by its type's shape (shape_offset), with no walk.
constexpr std::int32_t kShapedRecord = -2;

// How a launch's records locate their positions (LaunchKind): the uniform kernels have an instance for each answer.
//   Walks   some record walks its descriptor (the others may be flat or shaped)
//   Shapes  every record is flat or shaped: no walk, no descriptor in scratch
//   Flat    every record is flat: no arithmetic at all
enum class Locating { Walks, Shapes, Flat };

}  // namespace KokkosDDT::Impl
