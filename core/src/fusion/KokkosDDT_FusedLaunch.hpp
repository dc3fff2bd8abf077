// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The fused kernel's launch, as the fusion queue and the fixed batches issue it (and on synchronous hosts, one record
// on the calling thread). Compiled once per backend in the library (explicit instantiation).

#include <cstdint>
#include <string>

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

 private:
  template <class Functor>
  static void launch_as(const ExecSpace& space, const Functor& functor, const LaunchKind& kind, std::int64_t teams,
                        std::int64_t scratch, const std::string& label);
  template <Direction Dir>
  static void launch_uniform(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel, const LaunchKind& kind,
                             std::int64_t teams, std::int64_t scratch, const std::string& label);
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
          return launch_uniform<Direction::Copy>(space, kernel, kind, teams, scratch, label);
        case Direction::Pack:
          return launch_uniform<Direction::Pack>(space, kernel, kind, teams, scratch, label);
        case Direction::Unpack:
          return launch_uniform<Direction::Unpack>(space, kernel, kind, teams, scratch, label);
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
                                            const LaunchKind& kind, std::int64_t teams, std::int64_t scratch,
                                            const std::string& label) {
  with_word_size(kind.word(), [&](auto w) {
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

// Devices: a launch of combining unpacks, one kernel per Locating whose records' word sizes are dispatched per record
// (FusedTile::run_uniform): three kernels, not fifteen, for a kind of launch whose words are mostly its elements'.
template <class ExecSpace>
void FusedLaunch<ExecSpace>::launch_combining(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel,
                                              const LaunchKind& kind, std::int64_t teams, std::int64_t scratch,
                                              const std::string& label) {
  constexpr Direction C = Direction::Combine;
  switch (kind.locating()) {
    case Locating::Walks:
      return launch_as(space, UniformFusedKernel<ExecSpace, C, 0, Locating::Walks>{kernel}, kind, teams, scratch,
                       label);
    case Locating::Shapes:
      return launch_as(space, UniformFusedKernel<ExecSpace, C, 0, Locating::Shapes>{kernel}, kind, teams, scratch,
                       label);
    case Locating::Flat:
      return launch_as(space, UniformFusedKernel<ExecSpace, C, 0, Locating::Flat>{kernel}, kind, teams, scratch, label);
  }
}

template <class ExecSpace>
template <class Functor>
void FusedLaunch<ExecSpace>::launch_as(const ExecSpace& space, const Functor& functor, const LaunchKind& kind,
                                       std::int64_t teams, std::int64_t scratch, const std::string& label) {
  using Policy = typename FusedKernel<ExecSpace>::Policy;
  auto policy =
      Kokkos::Experimental::require(Policy(space, static_cast<int>(teams), kind.team_size<BackendTraits<ExecSpace>>()),
                                    Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  if (scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
  Kokkos::parallel_for(label, policy, functor);
}

template <class ExecSpace>
void FusedLaunch<ExecSpace>::run_on_calling_thread(const FusedRecord& r) {
  FusedTile<ExecSpace>::run_on_calling_thread(r);
}

// Compiled once per backend in the library (core/src/eti/KokkosDDT_ETI_FusedLaunch.cpp).
#define KOKKOSDDT_EXTERN_FUSED_LAUNCH(Space) extern template struct FusedLaunch<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_FUSED_LAUNCH)
#undef KOKKOSDDT_EXTERN_FUSED_LAUNCH

}  // namespace KokkosDDT::Impl
