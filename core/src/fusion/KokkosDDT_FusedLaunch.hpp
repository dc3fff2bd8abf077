// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The fused kernel's launch, as the fusion queue and the fixed batches issue it (and on synchronous hosts, one record
// on the calling thread). Compiled once per backend in the library (explicit instantiation).

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_FusedKernel.hpp"
#include "KokkosDDT_LaunchKind.hpp"

namespace KokkosDDT::Impl {

// The fused kernel's launch: `teams` teams of the backend's team size with `scratch` bytes of level-0 team scratch each
// (the fusion queue's and the fixed batches'), light weight (Kokkos then passes the 3 KiB functor as a kernel parameter
// instead of copying it to constant memory first, a copy and an event per launch); and one record on the calling
// thread (synchronous hosts). A class, so that the library compiles the kernel once per backend (explicit
// instantiation, below), not once for the queue and once for the batches.
template <class ExecSpace>
struct FusedLaunch {
  static void launch(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel, const LaunchKind& kind,
                     std::int64_t teams, std::int64_t scratch, const std::string& label);
  static void run_on_calling_thread(const FusedRecord& r);
  // The most stack a thread of any of the fused kernels takes (BackendTraits::kernel_stack_bytes: 0 on hosts): small
  // unless one of them copies its parameters there (FusedKernel), which the tests check.
  static std::int64_t largest_stack_bytes(const ExecSpace& space);

 private:
  using LaunchPolicy = decltype(Kokkos::Experimental::require(std::declval<typename FusedKernel<ExecSpace>::Policy>(),
                                                              Kokkos::Experimental::WorkItemProperty::HintLightWeight));
  template <class Functor>
  static std::int64_t stack_bytes(const ExecSpace& space) {
    return BackendTraits<ExecSpace>::template kernel_stack_bytes<Functor, LaunchPolicy>(space);
  }
  template <class Functor>
  static void launch_as(const ExecSpace& space, const Functor& functor, const LaunchKind& kind, std::int64_t teams,
                        std::int64_t scratch, const std::string& label);
  template <Direction Dir>
  static void launch_uniform(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel, const LaunchKind& kind,
                             int word, std::int64_t teams, std::int64_t scratch, const std::string& label);
  static void launch_combining(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel, const LaunchKind& kind,
                               std::int64_t teams, std::int64_t scratch, const std::string& label);
};

template <class ExecSpace>
void FusedLaunch<ExecSpace>::launch(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel,
                                    const LaunchKind& kind, std::int64_t teams, std::int64_t scratch,
                                    const std::string& label) {
  if (kind.combining() && !kind.all_combining())
    throw_error(ErrorCode::Internal, label, "records", "a launch mixes combining unpacks with other requests");
  if constexpr (!BackendTraits<ExecSpace>::walks_runs) {  // (hosts' code is specialized per record already)
    if (kind.combining()) return launch_combining(space, kernel, kind, teams, scratch, label);
    if (kind.word() > 0) {
      switch (kind.direction()) {
        case Direction::Copy:
          return launch_uniform<Direction::Copy>(space, kernel, kind, kind.word(), teams, scratch, label);
        case Direction::Pack:
          return launch_uniform<Direction::Pack>(space, kernel, kind, kind.word(), teams, scratch, label);
        case Direction::Unpack:
          return launch_uniform<Direction::Unpack>(space, kernel, kind, kind.word(), teams, scratch, label);
        case Direction::Runtime:
        case Direction::Combine:
          break;  // (no record has Runtime; combining launches went above)
      }
    }
  }
  launch_as(space, kernel, kind, teams, scratch, label);
}

template <class ExecSpace>
template <Direction Dir>
void FusedLaunch<ExecSpace>::launch_uniform(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel,
                                            const LaunchKind& kind, int word, std::int64_t teams, std::int64_t scratch,
                                            const std::string& label) {
  with_word_size(word, [&](auto w) {
    constexpr int W = decltype(w)::value;
    switch (kind.locating()) {
      case Locating::Walks:
        return launch_as(space, UniformFusedKernel<ExecSpace, Dir, W, Locating::Walks>{kernel}, kind, teams, scratch,
                         label);
      case Locating::Shapes:
        return launch_as(space, UniformFusedKernel<ExecSpace, Dir, W, Locating::Shapes>{kernel}, kind, teams, scratch,
                         label);
      case Locating::Flat:
        return launch_as(space, UniformFusedKernel<ExecSpace, Dir, W, Locating::Flat>{kernel}, kind, teams, scratch,
                         label);
    }
  });
}

// Devices: a launch of combining records runs the uniform kernels of its combining word (LaunchKind::combining_word),
// as other uniform launches run those of their word: a kernel that chose each record's word size itself held five times
// the code, and its registers spilled. Without one, a kernel that walks and takes each record's word.
template <class ExecSpace>
void FusedLaunch<ExecSpace>::launch_combining(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel,
                                              const LaunchKind& kind, std::int64_t teams, std::int64_t scratch,
                                              const std::string& label) {
  if (kind.combining_word() > 0)
    return launch_uniform<Direction::Combine>(space, kernel, kind, kind.combining_word(), teams, scratch, label);
  launch_as(space, UniformFusedKernel<ExecSpace, Direction::Combine, 0, Locating::Walks>{kernel}, kind, teams, scratch,
            label);
}

template <class ExecSpace>
template <class Functor>
void FusedLaunch<ExecSpace>::launch_as(const ExecSpace& space, const Functor& functor, const LaunchKind& kind,
                                       std::int64_t teams, std::int64_t scratch, const std::string& label) {
  using Policy = typename FusedKernel<ExecSpace>::Policy;
  LaunchPolicy policy =
      Kokkos::Experimental::require(Policy(space, static_cast<int>(teams), kind.team_size<BackendTraits<ExecSpace>>()),
                                    Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  if (scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
  Kokkos::parallel_for(label, policy, functor);
}

template <class ExecSpace>
void FusedLaunch<ExecSpace>::run_on_calling_thread(const FusedRecord& r) {
  FusedTile<ExecSpace>::run_on_calling_thread(r);
}

template <class ExecSpace>
std::int64_t FusedLaunch<ExecSpace>::largest_stack_bytes(const ExecSpace& space) {
  std::int64_t most = stack_bytes<FusedKernel<ExecSpace>>(space);
  if constexpr (!BackendTraits<ExecSpace>::walks_runs) {
    most = std::max(most, stack_bytes<UniformFusedKernel<ExecSpace, Direction::Combine, 0, Locating::Walks>>(space));
    auto uniform = [&](auto direction) {
      constexpr Direction D = decltype(direction)::value;
      for (int word : {1, 2, 4, 8, 16})
        with_word_size(word, [&](auto w) {
          constexpr int W = decltype(w)::value;
          most = std::max({most, stack_bytes<UniformFusedKernel<ExecSpace, D, W, Locating::Walks>>(space),
                           stack_bytes<UniformFusedKernel<ExecSpace, D, W, Locating::Shapes>>(space),
                           stack_bytes<UniformFusedKernel<ExecSpace, D, W, Locating::Flat>>(space)});
        });
    };
    uniform(std::integral_constant<Direction, Direction::Copy>{});
    uniform(std::integral_constant<Direction, Direction::Pack>{});
    uniform(std::integral_constant<Direction, Direction::Unpack>{});
    uniform(std::integral_constant<Direction, Direction::Combine>{});
  }
  return most;
}

// Compiled once per backend in the library (core/src/eti/KokkosDDT_ETI_FusedLaunch.cpp).
#define KOKKOSDDT_EXTERN_FUSED_LAUNCH(Space) extern template struct FusedLaunch<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_FUSED_LAUNCH)
#undef KOKKOSDDT_EXTERN_FUSED_LAUNCH

}  // namespace KokkosDDT::Impl
