// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The description behind a Datatype handle: the constructor tree exactly as the user built it (what
// MPI_Type_get_contents returns), plus the properties MPI defines on it, computed once at construction.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "KokkosDDT_Datatype.hpp"

namespace KokkosDDT::Impl {

struct TypeNode {
  Combiner combiner = Combiner::Named;
  Primitive primitive = Primitive::Byte;  // Named only

  // Constructor arguments as given. Strides and displacements are in old-type extents for vector, indexed and
  // indexed_block, and in bytes for hvector, hindexed, hindexed_block and struct.
  std::int64_t count = 0;
  std::int64_t blocklength = 0;
  std::int64_t stride = 0;
  std::vector<std::int64_t> blocklengths;
  std::vector<std::int64_t> displacements;
  std::vector<std::int64_t> sizes, subsizes, starts;
  Order order = Order::C;
  std::int64_t resized_lb = 0, resized_extent = 0;
  std::vector<std::shared_ptr<const TypeNode>> children;  // struct: one per field; other derived types: one

  // MPI properties (bytes).
  std::int64_t size = 0;
  std::int64_t lb = 0, ub = 0;
  std::int64_t true_lb = 0, true_ub = 0;
  std::int64_t num_primitives = 0;
  std::int64_t alignment = 1;  // largest primitive alignment inside: the unit of struct padding
  TypeSignature signature;
  // The primitives its signature holds: bit p for Primitive p (fields and blocks that hold nothing add none). Set
  // beside the signature by every constructor; what an operation's unpack checks its elements against (Op).
  std::uint32_t primitives = 0;

  std::int64_t extent() const { return ub - lb; }
  const TypeNode& child(std::size_t i = 0) const { return *children[i]; }

  // Commit state, shared by every handle to this node. `committed_fast` mirrors `committed` once it is set, so the
  // pack path reads it without a lock or a reference count (the node owns it for its whole life).
  mutable std::mutex commit_mutex;
  mutable std::shared_ptr<const CommittedType> committed;
  mutable std::atomic<const CommittedType*> committed_fast{nullptr};
};

// Size, alignment and signature element of each named primitive.
std::int64_t primitive_size(Primitive p);
std::int64_t primitive_alignment(Primitive p);
const char* primitive_name(Primitive p);

}  // namespace KokkosDDT::Impl
