// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A committed type: its serialized descriptor on the host, and copies of it in each memory space it was used from
// (made on first use, cached, and released at Kokkos::finalize or when the type dies). Commit itself touches no
// device: small descriptors never need a copy (single launches carry them as kernel parameters, CarriedDescriptor),
// and the others are copied by the first launch that needs them.

#include <cstdint>
#include <atomic>
#include <memory>
#include <string>
#include <typeindex>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Descriptor.hpp"
#include "KokkosDDT_Shape.hpp"
#include "KokkosDDT_SharedLevels.hpp"

namespace KokkosDDT::Impl {

struct TypeNode;

struct CommittedType {
  std::vector<DescriptorNode>
      nodes;  // preorder; nodes[0] is the instance level (instances one extent apart), see instances_of
  std::vector<std::int64_t> lookaside;
  std::int64_t size = 0;
  std::int64_t extent = 0;
  std::int64_t data_lb = 0;  // [data_lb, data_ub): the bytes one instance moves, relative to its origin
  std::int64_t data_ub = 0;
  int word_single = 1;    // widest word for count == 1
  int word_repeated = 1;  // ... for count > 1 (the extent must be a multiple too)
  std::uint64_t id = 0;   // unique for the process lifetime (the device-copy cache knows a type by it)
  Shape shape;            // shape_of(nodes): what code compiled for a shape may move without the walk

  // The default memory space's copy, found without the cache's lock (valid while `fast_generation` matches
  // descriptor_generation(), which Kokkos::finalize bumps).
  mutable std::atomic<const void*> fast_descriptor{nullptr};
  mutable std::atomic<std::uint64_t> fast_generation{0};

  CommittedType();
  ~CommittedType();
  CommittedType(const CommittedType&) = delete;
  CommittedType& operator=(const CommittedType&) = delete;
};

// Normalizes and serializes (commit's work; linear in the type's description).
std::shared_ptr<const CommittedType> commit_type(const TypeNode& type);

// Whether `count` instances of `type` are one contiguous run of bytes; if so, its offset from the buffer's origin
// (dense_run). `count` x size must not overflow (callers check it first).
inline bool contiguous_run(const CommittedType& c, std::int64_t count, std::int64_t& offset) {
  if (c.size == 0 || count == 0) return offset = 0, true;
  return dense_run(c.nodes.data(), c.lookaside.data(), count * c.size, offset);
}

// The normalized layout of one instance of `type`, rendered (Datatype::layout(); rebuilt on each call).
std::string normalized_layout(const TypeNode& type);

// The descriptor as Views in MemSpace, with the type's shape (one Shape) for fused records that move it by its shape.
template <class MemSpace>
struct Descriptor {
  Kokkos::View<const DescriptorNode*, MemSpace> nodes;
  Kokkos::View<const std::int64_t*, MemSpace> lookaside;
  Kokkos::View<const Shape*, MemSpace> shape;
};

// Type-erased cache of device copies, keyed by a type's content (its nodes and lookaside) and the memory space: types
// of equal content share one copy (KokkosDDT_Committed.cpp).
std::uint64_t descriptor_generation();
std::shared_ptr<const void> find_descriptor(const CommittedType& type, std::type_index space);
std::shared_ptr<const void> store_descriptor(const CommittedType& type, std::type_index space,
                                             std::shared_ptr<const void> d);

// The descriptor in MemSpace. The first use in a memory space copies it there on `space` and fences that instance only
// (another instance may pick the cached copy up at once, so it must be complete when it is published).
template <class MemSpace, class ExecSpace>
Descriptor<MemSpace> descriptor(const CommittedType& type, const ExecSpace& space) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<const DescriptorNode*, Kokkos::HostSpace, Unmanaged> host_nodes(type.nodes.data(), type.nodes.size());
  Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Unmanaged> host_lookaside(type.lookaside.data(),
                                                                                 type.lookaside.size());
  Kokkos::View<const Shape*, Kokkos::HostSpace, Unmanaged> host_shape(&type.shape, 1);
  if constexpr (std::is_same_v<MemSpace, Kokkos::HostSpace>) {
    (void)space;
    return {host_nodes, host_lookaside, host_shape};  // the host arrays themselves: no copy
  } else {
    constexpr bool fast = std::is_same_v<MemSpace, Kokkos::DefaultExecutionSpace::memory_space>;
    if constexpr (fast) {
      const void* d = type.fast_descriptor.load(std::memory_order_acquire);
      if (d && type.fast_generation.load(std::memory_order_acquire) == descriptor_generation())
        return *static_cast<const Descriptor<MemSpace>*>(d);
    }
    const std::type_index key(typeid(MemSpace));
    if (auto found = find_descriptor(type, key)) {
      if constexpr (fast) {
        type.fast_generation.store(descriptor_generation(), std::memory_order_release);
        type.fast_descriptor.store(found.get(), std::memory_order_release);
      }
      return *static_cast<const Descriptor<MemSpace>*>(found.get());
    }
    Kokkos::View<DescriptorNode*, MemSpace> nodes(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "KokkosDDT::descriptor"), type.nodes.size());
    Kokkos::View<std::int64_t*, MemSpace> lookaside(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "KokkosDDT::lookaside"), type.lookaside.size());
    Kokkos::View<Shape*, MemSpace> shape(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "KokkosDDT::shape"), 1);
    Kokkos::deep_copy(space, nodes, host_nodes);
    Kokkos::deep_copy(space, lookaside, host_lookaside);
    Kokkos::deep_copy(space, shape, host_shape);
    space.fence("KokkosDDT: descriptor copied");
    auto made = std::make_shared<const Descriptor<MemSpace>>(Descriptor<MemSpace>{nodes, lookaside, shape});
    return *static_cast<const Descriptor<MemSpace>*>(store_descriptor(type, key, made).get());
  }
}

}  // namespace KokkosDDT::Impl
