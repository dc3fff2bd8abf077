// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How a fused launch's teams begin and complete: the per-request flags the host polls; device completion (counters a
// launch raises once all its teams are done, in other processes' memory too) and device begin (counters raised as it
// starts, and gates its teams wait for before they write): a direct transport's signals (DeviceSignals); and phases
// (records that write only after every team of the phase before has: requests that reach the same bytes, in order).

#include <cstdint>

#include <Kokkos_Core.hpp>
#include <desul/atomics.hpp>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_FusedRecord.hpp"

namespace KokkosDDT::Impl {

// A team's work in a launch: its team index among the launch's, and (its leading thread's, with phases) its phase.
struct FusedTicket {
  std::int64_t team = 0;
  std::int32_t phase = 0;
};

template <class ExecSpace>
struct FusedCompletion {
  using Backend = BackendTraits<ExecSpace>;
  using MemSpace = typename ExecSpace::memory_space;

  Kokkos::View<std::int64_t*, MemSpace> done;  // per slot: teams finished so far (reset by the last one)
  std::uint64_t* flags = nullptr;              // per slot, readable by the host
  // Device completion (FusedBatch::signal_after): once every team of the launch is done, `signal` is stored into each
  // of the `signals` counters (other processes' memory, mapped: the peer transport's "written"), at system scope.
  // Device begin (FusedBatch::gate_on), after them in the same array: the first team to start stores `signal` into
  // each of `raise_count` counters; then `gate_count` counters, one of which a gated record's teams wait for.
  const std::uintptr_t* signals = nullptr;  // (addresses: a View of pointers would be a View of rank 2)
  std::int32_t signal_count = 0, raise_count = 0, gate_count = 0;
  // Counters raised and reset in their low 32 bits, whose high half is another's (KokkosDDT_PeerLinks.hpp's
  // replayable ones): the last team also sets each gate back to 0 before the signals.
  bool low_half = false;
  std::uint64_t signal = 0;
  std::int64_t* launch_done = nullptr;     // teams of the launch finished so far (reset by the last one)
  std::int64_t* launch_started = nullptr;  // teams of the launch started so far (device begin; reset by the last one)
  std::int64_t launch_teams = 0;
  // Phases (FusedBatch::phase), where the launch has more than one: ranges of its teams, phase p the teams
  // [phase_first[p], phase_first[p + 1]). A team of phase p > 0 writes only once every team of phase p - 1 has
  // finished (which waited for the phase before it in turn), so that a phase sees the writes of all before. The teams
  // then take their work by ticket, in the order they start, not by league rank: a team waits only for work that teams
  // started before it hold, which run to their end whatever order the device starts its teams in, so no launch waits
  // for itself. Counters: [0] tickets taken, [1] teams finished, [2 + p] teams of phase p finished (reset by the last
  // team).
  std::int64_t* phases = nullptr;
  const std::int64_t* phase_first = nullptr;
  std::int32_t phase_count = 0;

  // The work of this team: its league rank, or with phases the next ticket (and, for its leading thread, its phase).
  template <class Member>
  KOKKOS_FUNCTION FusedTicket ticket(const Member& team) const {
    if (phases == nullptr) return {team.league_rank(), 0};
    FusedTicket t;
    if (leads(team)) {
      t.team =
          desul::atomic_fetch_add(phases, std::int64_t(1), desul::MemoryOrderRelaxed(), desul::MemoryScopeDevice());
      std::int32_t lo = 0, hi = phase_count;  // (the last phase whose first team is not after it)
      while (hi - lo > 1) {
        const std::int32_t mid = (lo + hi) / 2;
        if (phase_first[mid] <= t.team)
          lo = mid;
        else
          hi = mid;
      }
      t.phase = lo;
    }
    team.team_broadcast(t.team, 0);
    return t;
  }

  // Device begin. The first team to start raises the counters (once per launch: a replayable counter raised again
  // after its reader's reset would open its next step early); a gated record's teams then wait, one thread polling,
  // until their gate reaches `signal` (compared as the stream's wait compares: (int64)(counter - value) >= 0, which a
  // terminal or "ended" value meets), and acquire what was published before it. Nothing without gates (FusedBatch::
  // gate_on).
  template <class Member>
  KOKKOS_FUNCTION void begin(const Member& team, const FusedRecord& r, const FusedTicket& t) const {
    if (phases != nullptr) {  // (the phase before finished; its writes acquired)
      if (leads(team) && t.phase > 0) {
        const auto* finished = reinterpret_cast<volatile const std::int64_t*>(phases + 2 + t.phase - 1);
        const std::int64_t teams = phase_first[t.phase] - phase_first[t.phase - 1];
        while (*finished < teams) {
        }
        Backend::fence_acq_rel_node();
      }
      team.team_barrier();
    }
    if (gate_count == 0) return;
    const bool gated = r.gate >= 0;
    if (leads(team)) {
      if (raise_count > 0 && desul::atomic_fetch_add(launch_started, std::int64_t(1), desul::MemoryOrderRelaxed(),
                                                     desul::MemoryScopeDevice()) == 0)
        for (std::int32_t k = 0; k < raise_count; ++k) store(signals[signal_count + k], signal);
      if (gated) {
        const auto* at = reinterpret_cast<volatile const std::uint64_t*>(signals[signal_count + raise_count + r.gate]);
        while (static_cast<std::int64_t>(*at - signal) < 0) {
        }
        Backend::fence_acq_rel_node();
      }
    }
    if (gated) team.team_barrier();
  }

  // After the team's tile of record r. After the barrier one thread per team releases the team's writes (cumulative
  // over the barrier) by counting the team with a device-scope release; the last team (of the request, or of the
  // launch; a one-team request needs no count) then fences at system scope, which acquires every counted team's writes
  // and publishes them, host and peers' memory included, before the flag the host polls or the counters peers wait
  // for. Plain volatile stores: GPUs on PCIe have no atomics on host memory.
  // `chained`: the records before r that ran in its teams (a chain's), whose flags it raises too.
  template <class Member>
  KOKKOS_FUNCTION void finish(const Member& team, const FusedRecord& r, const FusedTicket& t,
                              std::int32_t chained = 0) const {
    // (no flags: a stream-ordered launch, whose completion is the stream's: FusedBatch::launch_ordered)
    if (flags == nullptr && signal_count == 0 && phases == nullptr) return;
    team.team_barrier();
    if (leads(team)) {
      if (phases != nullptr) complete_phase(t.phase);
      if (flags) complete(r, chained);
      if (signal_count > 0) complete_launch();
    }
  }

 private:
  // The team's one thread that raises, waits and completes. Not Kokkos::single(PerTeam): on CUDA it computes a
  // __syncwarp mask with two integer divisions by the vector length in every warp of every team, a sizable share of a
  // halo pack's instructions; the launches' vector length is 1 and nothing here needs that sync.
  template <class Member>
  KOKKOS_FUNCTION static bool leads(const Member& team) {
    return team.team_rank() == 0;
  }
  KOKKOS_FUNCTION void store(std::uintptr_t at, std::uint64_t value) const {
    if (low_half)  // (little-endian: the low half comes first)
      *reinterpret_cast<volatile std::uint32_t*>(at) = static_cast<std::uint32_t>(value);
    else
      *reinterpret_cast<volatile std::uint64_t*>(at) = value;
  }
  KOKKOS_FUNCTION bool last_of(std::int64_t* counter, std::int64_t teams) const {
    if (teams <= 1) return true;
    const std::int64_t before =
        desul::atomic_fetch_add(counter, std::int64_t(1), desul::MemoryOrderRelease(), desul::MemoryScopeDevice());
    if (before + 1 < teams) return false;
    *counter = 0;  // nothing touches it again before the next launch, which is stream-ordered
    return true;
  }
  KOKKOS_FUNCTION void complete(const FusedRecord& r, std::int32_t chained) const {
    if (!last_of(&done(r.slot), r.teams)) return;
    Backend::fence_acq_rel_node();
    for (std::int32_t k = 0; k <= chained; ++k)  // (a chain's records have the slots before its last's)
      *static_cast<volatile std::uint64_t*>(flags + r.slot - k) = r.ticket;
  }
  // Counts the team in its phase (a release of its writes, as complete's); the launch's last team sets the counters
  // back for the next launch (stream-ordered after this one: nothing reads them before).
  KOKKOS_FUNCTION void complete_phase(std::int32_t phase) const {
    desul::atomic_fetch_add(phases + 2 + phase, std::int64_t(1), desul::MemoryOrderRelease(),
                            desul::MemoryScopeDevice());
    if (!last_of(phases + 1, launch_teams)) return;
    phases[0] = 0;
    for (std::int32_t p = 0; p < phase_count; ++p) phases[2 + p] = 0;
    Backend::fence_acq_rel_node();
  }
  KOKKOS_FUNCTION void complete_launch() const {
    if (!last_of(launch_done, launch_teams)) return;
    if (raise_count > 0) *launch_started = 0;  // (every team has started: it counted itself at its start)
    if (low_half)                              // (every team is past its wait)
      for (std::int32_t k = 0; k < gate_count; ++k) store(signals[signal_count + raise_count + k], 0);
    Backend::fence_acq_rel_node();
    for (std::int32_t k = 0; k < signal_count; ++k) store(signals[k], signal);
  }
};

}  // namespace KokkosDDT::Impl
