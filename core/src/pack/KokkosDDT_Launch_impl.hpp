// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// TraversalLaunch's definition (KokkosDDT_Launch.hpp): picks the traversal layout the backend wants (the host walk or
// the device interleave), sizes the tiles, and launches on the caller's instance.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_DeviceInterleave.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_HostWalk.hpp"
#include "KokkosDDT_CarriedDescriptor.hpp"
#include "KokkosDDT_Launch.hpp"
#include "KokkosDDT_ShapeLaunch.hpp"
#include "KokkosDDT_TraversalArgs.hpp"

namespace KokkosDDT::Impl {

// How transfers on ExecSpace are laid out and launched, from its BackendTraits. (The tests substitute other shapes to
// run the device layout, in both launch forms, on host backends.)
template <class ExecSpace>
struct LaunchShape {
  using Backend = BackendTraits<ExecSpace>;
  static constexpr bool walks_runs = Backend::walks_runs;
  // Synchronous hosts run a transfer that fits one team on the calling thread: a small pack then costs what MPI_Pack's
  // does, not a fork/join.
  static constexpr bool inline_single_team = walks_runs && Backend::synchronous;
  // Devices launch flat: a TeamPolicy adds host time to the launch, and its scratch copy and barrier device time, for
  // no gain at any size.
  static constexpr bool flat = !walks_runs;
  static int team_size() { return Backend::team_size; }
  // Threads the device holds at once: what the descriptor-carrying rules (carry_descriptor) measure a launch against.
  static std::int64_t resident_threads(const ExecSpace& space) { return Backend::threads(space); }

  // Packed bytes per team. Hosts: enough tiles to balance the threads, each large enough to amortize the descriptor
  // copy. Devices: enough threads to fill the device first; beyond that, more work per thread only for narrow words
  // (up to Backend::thread_bytes bytes' worth).
  static std::int64_t tile_bytes(const ExecSpace& space, std::int64_t total, int word) {
    if constexpr (walks_runs) {
      constexpr std::int64_t min_tile = std::int64_t(64) << 10;
      if (total <= min_tile) return min_tile;  // one team, and no need to ask for the thread count
      const std::int64_t threads = Backend::threads(space);
      if (threads == 1) return (total + word - 1) / word * word;  // nothing to balance: one team walks it all
      const std::int64_t balanced = (total + 4 * threads - 1) / (4 * threads);
      const std::int64_t tile = std::max<std::int64_t>(min_tile, balanced);
      return (tile + word - 1) / word * word;
    } else {
      const std::int64_t words = (total + word - 1) / word;
      const std::int64_t threads = Backend::threads(space);
      const std::int64_t most = std::max<std::int64_t>(1, Backend::thread_bytes / word);
      const std::int64_t per_thread = std::clamp<std::int64_t>((words + threads - 1) / threads, 1, most);
      return std::int64_t(team_size()) * word * per_thread;
    }
  }
};

template <class ExecSpace, class Launch, int W>
TraversalArgs<typename ExecSpace::memory_space> make_args(const ExecSpace& space,
                                                          const Descriptor<typename ExecSpace::memory_space>& d,
                                                          char* typed, char* packed, std::int64_t begin,
                                                          std::int64_t end) {
  TraversalArgs<typename ExecSpace::memory_space> args;
  args.nodes = d.nodes;
  args.lookaside = d.lookaside;
  args.typed = typed;
  args.packed = packed;
  args.begin = begin;
  args.end = end;
  args.tile = Launch::tile_bytes(space, end - begin, W);
  args.cache_descriptor =
      static_cast<std::int64_t>(d.nodes.extent(0) * sizeof(DescriptorNode)) <= kMaxScratchDescriptor;
  return args;
}

// Launches a device traversal functor flat or as a TeamPolicy, as Launch (a LaunchShape) says.
template <class ExecSpace, class Launch, class Kernel>
void launch_interleave(const ExecSpace& space, const std::string& label, Kernel& kernel, std::int64_t node_count) {
  const int team_size = Launch::team_size();
  kernel.threads_per_team = team_size;
  kernel.per_team = Divisor::make(team_size);
  kernel.packed_wide = Kernel::packed_words_fit(kernel.args.packed, kernel.args.tile, team_size);
  const std::int64_t teams = (kernel.args.end - kernel.args.begin + kernel.args.tile - 1) / kernel.args.tile;
  if constexpr (Launch::flat) {
    (void)node_count;
    const std::string error = BackendTraits<ExecSpace>::launch_flat(space, label, teams * team_size, kernel);
    if (!error.empty()) throw_error(ErrorCode::Backend, label, "launch", error);
  } else {
    Kokkos::TeamPolicy<ExecSpace> policy(space, static_cast<int>(teams), team_size);
    if (kernel.args.cache_descriptor) policy.set_scratch_size(0, Kokkos::PerTeam(descriptor_scratch_bytes(node_count)));
    Kokkos::parallel_for(label, policy, kernel);
  }
}

// A flat launch with the descriptor carried in an CarriedDescriptor<Bytes>; false (nothing launched) where it does not
// fit, or Bytes is 0 (CarriedDescriptor<0> exists so that this compiles when a block is configured off).
template <int Bytes, class ExecSpace, Direction Dir, int W, class Launch>
bool launch_carried([[maybe_unused]] const ExecSpace& space, [[maybe_unused]] const std::string& label,
                    [[maybe_unused]] const CommittedType& type, [[maybe_unused]] char* typed,
                    [[maybe_unused]] char* packed, [[maybe_unused]] std::int64_t begin,
                    [[maybe_unused]] std::int64_t end) {
  if constexpr (Bytes > 0) {
    using MemSpace = typename ExecSpace::memory_space;
    const auto nodes = static_cast<std::int64_t>(type.nodes.size());
    const auto lookaside = static_cast<std::int64_t>(type.lookaside.size());
    if (!CarriedDescriptor<Bytes>::fits(nodes, lookaside)) return false;
    DeviceInterleave<ExecSpace, Dir, W, Bytes> kernel;
    kernel.args = make_args<ExecSpace, Launch, W>(space, Descriptor<MemSpace>{}, typed, packed, begin, end);
    skip_common_levels(type.nodes.data(), type.lookaside.data(), kernel.args);
    kernel.first_node = type.nodes[static_cast<std::size_t>(kernel.args.start)];
    kernel.carried.fill(type.nodes.data(), nodes, type.lookaside.data(), lookaside);
    launch_interleave<ExecSpace, Launch>(space, label, kernel, nodes);
    return true;
  }
  return false;
}

template <class ExecSpace, Direction Dir, int W, class Launch>
void launch_traversal_words(const ExecSpace& space, const CommittedType& type, char* typed, char* packed,
                            std::int64_t begin, std::int64_t end) {
  using MemSpace = typename ExecSpace::memory_space;
  static const std::string label = Dir == Direction::Pack ? "KokkosDDT::pack" : "KokkosDDT::unpack";
  const auto nodes = static_cast<std::int64_t>(type.nodes.size());
  if constexpr (Launch::walks_runs) {
    if constexpr (Launch::inline_single_team) {
      // One tile: the same walk on the calling thread, without a fork/join. Small transfers are bound by the host's
      // time, so nothing is built that the walk does not use: a contiguous type is one memcpy, a strided shape
      // (KokkosDDT_Shape.hpp) its loop nest, and only other types read their descriptor.
      if (end - begin <= Launch::tile_bytes(space, end - begin, W)) {
        const bool tools = Kokkos::Tools::profileLibraryLoaded();
        if (tools) Kokkos::Profiling::pushRegion(label);  // tools still see the operation
        using Walk = HostWalk<ExecSpace, Dir, W>;
        if (type.shape.kind == Shape::Kind::Contig) {  // the stream is the typed bytes
          char* run = address_at(typed, type.shape.disp + begin);
          std::memcpy(Dir == Direction::Pack ? packed : run, Dir == Direction::Pack ? run : packed, end - begin);
        } else if (Walk::walks_shape(type.shape)) {  // code for the shape: no descriptor read, no walk
          TraversalArgs<MemSpace> args;
          args.typed = typed;
          args.packed = packed;
          args.begin = begin;
          args.end = end;
          Walk{args}.walk_shape(type.shape, type.lookaside.data(), begin, end);
        } else {
          const HostWalk<ExecSpace, Dir, W> kernel{
              make_args<ExecSpace, Launch, W>(space, descriptor<MemSpace>(type, space), typed, packed, begin, end)};
          kernel.walk(type.nodes.data(), begin, end);
        }
        if (tools) Kokkos::Profiling::popRegion();
        return;
      }
    }
    const auto d = descriptor<MemSpace>(type, space);  // (the host arrays themselves)
    // The functor holds the arguments (built in place: small transfers are host-time bound).
    const HostWalk<ExecSpace, Dir, W> kernel{make_args<ExecSpace, Launch, W>(space, d, typed, packed, begin, end)};
    Kokkos::TeamPolicy<ExecSpace> policy(
        space, static_cast<int>((end - begin + kernel.args.tile - 1) / kernel.args.tile), Launch::team_size());
    if (kernel.args.cache_descriptor) policy.set_scratch_size(0, Kokkos::PerTeam(descriptor_scratch_bytes(nodes)));
    Kokkos::parallel_for(label, policy, kernel);
  } else {
    if constexpr (Launch::flat && W >= 4) {  // a canonical shape: its own arithmetic per word, no descriptor
      if (type.shape.kind != Shape::Kind::General)
        return launch_shape<ExecSpace, Dir, W>(space, label, type, typed, packed, begin, end);
    }
    // Small descriptors ride in the flat kernel's parameters unless the launch is large and its words narrow
    // (carry_descriptor): no device copy to make or look up. Two parameter blocks, the larger only for descriptors
    // over the smaller's bytes and in latency-bound launches (carry_large_descriptor).
    if constexpr (Launch::flat) {
      const std::int64_t words = (end - begin) / W, resident = Launch::resident_threads(space);
      if (carry_descriptor(words, W, resident) &&
          (launch_carried<Config::carried_descriptor_bytes, ExecSpace, Dir, W, Launch>(space, label, type, typed,
                                                                                       packed, begin, end) ||
           (carry_large_descriptor(words, resident) &&
            launch_carried<Config::carried_descriptor_bytes_large, ExecSpace, Dir, W, Launch>(space, label, type, typed,
                                                                                              packed, begin, end))))
        return;
    }
    DeviceInterleave<ExecSpace, Dir, W> kernel;
    kernel.args = make_args<ExecSpace, Launch, W>(space, descriptor<MemSpace>(type, space), typed, packed, begin, end);
    skip_common_levels(type.nodes.data(), type.lookaside.data(), kernel.args);
    kernel.first_node = type.nodes[static_cast<std::size_t>(kernel.args.start)];
    launch_interleave<ExecSpace, Launch>(space, label, kernel, nodes);
  }
}

// with_word_size's callee for a launch: host code. (Not behind KOKKOS_IF_ON_HOST in a host-device operator: the
// device pass would then never see the launch and drop its kernel, leaving a stub that fails with "invalid device
// function".)
template <class ExecSpace, Direction Dir, class Launch>
struct LaunchWithWord {
  const ExecSpace& space;
  const CommittedType& type;
  char* typed;
  char* packed;
  std::int64_t begin, end;
  template <class W>
  void operator()(W) const {
    launch_traversal_words<ExecSpace, Dir, W::value, Launch>(space, type, typed, packed, begin, end);
  }
};

template <class ExecSpace, Direction Dir, class Launch>
void TraversalLaunch<ExecSpace, Dir, Launch>::launch(const ExecSpace& space, const CommittedType& type, char* typed,
                                                     char* packed, std::int64_t begin, std::int64_t end, int word) {
  if (end <= begin) return;  // nothing to move (and a launch of zero blocks is an error on CUDA)
  with_word_size(word, LaunchWithWord<ExecSpace, Dir, Launch>{space, type, typed, packed, begin, end});
}

}  // namespace KokkosDDT::Impl
