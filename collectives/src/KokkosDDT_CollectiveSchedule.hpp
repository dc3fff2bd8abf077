// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which schedule a gather or scatter runs, chosen by a cost model once the processes have agreed on the sizes:
//
//   linear (direct): every process sends its block straight to the root (scatter: receives it from the root), which
//           moves each with one typed operation; one dependent message step, p - 1 messages at the root.
//   tree:   Träff's ordered tree (KokkosDDT_GatherTree.hpp): 2 ceil(log2 p) - 1 dependent steps of 64-byte records
//           build it, then ceil(log2 p) data hops, ceil(log2 p) messages at the root. Where the processes agreed
//           that every block has one size, each computes the tree alone: the data hops remain.
//
// Model (per message: alpha + beta * bytes; a root receiving or sending many messages at once pays `gap` for each one
// after the first, LogP's g):
//
//   T_linear = alpha + (p - 2) gap + beta m               (m: the bytes of all blocks)
//   T_tree   = (3 ceil(log2 p) - 1) alpha + beta m        (blocks of one size: ceil(log2 p) alpha + beta m)
//
// Both move every byte through the root once (the tree's forwarding overlaps the root's receives, so large blocks take
// alike either way), so the choice turns on start-ups: the tree wins once (p - 2) gap exceeds (3 ceil(log2 p) - 2)
// alpha (blocks of one size: (ceil(log2 p) - 1) alpha), i.e. for many processes or costly start-ups (a network). The
// model's constants come from gatherv_bench --alpha-beta (docs/collectives.md) or are given per call; every process
// must use the same (they are part of what the processes agree on before anything moves).

#include <cstdint>
#include <string>

#include "KokkosDDT_Settings.hpp"

namespace KokkosDDT {

enum class CollectiveSchedule : std::int64_t {
  Auto = 0,    // by the model, from the agreed sizes
  Tree = 1,    // Träff's ordered tree (with direct subtrees from CollectiveOptions::direct_threshold)
  Linear = 2,  // every block straight between its process and the root
};

// How a nonpersistent gather or scatter checks its arguments across the processes.
enum class ArgumentCheck : std::int64_t {
  Auto = 0,   // KOKKOSDDT_CHECK_ARGUMENTS from the environment ("0": Local), else All
  All = 1,    // the processes agree before anything moves (one reduction): any bad argument anywhere throws everywhere
  Local = 2,  // each process checks its own arguments and the root what arrives; a mismatch across them may hang
};

// Costs in microseconds (alpha, gap) and nanoseconds per byte (beta).
struct CollectiveModel {
  double alpha_us = 0.44;  // one dependent step of a small message (half a ping-pong round trip of 8 bytes)
  double gap_us = 0.066;   // each further small message a root receives in one step
  double beta_ns = 0.124;  // per byte (least-squares slope, 8 B .. 1 MiB)

  // The defaults: one node's processes over shared memory (the constants gatherv_bench --alpha-beta finds,
  // docs/collectives.md). Under them: linear up to about 128 processes, the tree beyond (blocks of one size: up to 28).
  static CollectiveModel shared_memory_node() { return {}; }
};

struct CollectiveOptions {
  // A subtree whose data (bytes) reaches this sends it straight to the root (scatter: receives it from the root).
  // -1: KOKKOSDDT_COLLECTIVE_DIRECT_BYTES from the environment, else kDefaultDirectThreshold. The same on every
  // process, like the schedule and the model (the processes agree on it before anything moves).
  std::int64_t direct_threshold = -1;
  // 2 alpha / beta (docs/collectives.md): the size at which two more message start-ups at the root (header and data)
  // cost what forwarding the data once more does, with the alpha and beta of one node's processes over shared memory.
  static constexpr std::int64_t kDefaultDirectThreshold = std::int64_t(24) << 10;
  // Auto: KOKKOSDDT_COLLECTIVE_SCHEDULE (auto, tree, linear) from the environment, else the model's choice.
  CollectiveSchedule schedule = CollectiveSchedule::Auto;
  // Negative alpha: KOKKOSDDT_COLLECTIVE_MODEL ("alpha_us,gap_us,beta_ns") from the environment, else the defaults.
  CollectiveModel model{-1, 0, 0};
  // Nonpersistent calls (persistent ones always agree, once, at init). Local, as MPI does: no reduction, and none of
  // its dependent message steps, before the data; each process still throws for its own bad arguments, and the root for
  // a message of another size than its counts say (nothing written past its buffer), but a root, counts or options that
  // differ between the processes are no longer caught and may hang, as in MPI. Every process must pass the same.
  ArgumentCheck check = ArgumentCheck::Auto;
};

namespace Impl {

inline std::int64_t direct_threshold(const CollectiveOptions& o) {
  if (o.direct_threshold >= 0) return o.direct_threshold;
  return settings().collective_direct_bytes.value_or(CollectiveOptions::kDefaultDirectThreshold);
}

inline CollectiveSchedule requested_schedule(const CollectiveOptions& o) {
  if (o.schedule != CollectiveSchedule::Auto) return o.schedule;
  switch (settings().collective_schedule) {
    case Settings::Schedule::Tree:
      return CollectiveSchedule::Tree;
    case Settings::Schedule::Linear:
      return CollectiveSchedule::Linear;
    default:
      return CollectiveSchedule::Auto;
  }
}

// Whether the processes agree on the arguments before anything moves (ArgumentCheck::All).
inline bool agreed_arguments(const CollectiveOptions& o) {
  if (o.check != ArgumentCheck::Auto) return o.check == ArgumentCheck::All;
  return settings().check_arguments;
}

inline CollectiveModel model(const CollectiveOptions& o) {
  if (o.model.alpha_us >= 0) return o.model;
  CollectiveModel m = CollectiveModel::shared_memory_node();
  if (const auto& set = settings().collective_model) {
    m.alpha_us = (*set)[0];
    m.gap_us = (*set)[1];
    m.beta_ns = (*set)[2];
  }
  return m;
}

inline int ceil_log2(int p) {
  int r = 0;
  while ((1 << r) < p) ++r;
  return r;
}

// Modelled times (us) of the two schedules for p processes moving `bytes` in all.
inline double linear_time(const CollectiveModel& m, int p, std::int64_t bytes) {
  return m.alpha_us + (p > 2 ? p - 2 : 0) * m.gap_us + m.beta_ns * 1e-3 * static_cast<double>(bytes);
}
// `equal_blocks`: every process knows every block's size, so the tree needs no construction.
inline double tree_time(const CollectiveModel& m, int p, std::int64_t bytes, bool equal_blocks = false) {
  const int steps = equal_blocks ? ceil_log2(p) : 3 * ceil_log2(p) - 1;
  return steps * m.alpha_us + m.beta_ns * 1e-3 * static_cast<double>(bytes);
}

// The schedule every process runs: the same inputs (agreed) give the same answer everywhere. (The byte terms are
// equal, so the sizes do not enter: the processes need not agree on them.)
inline CollectiveSchedule choose_schedule(CollectiveSchedule requested, const CollectiveModel& m, int p,
                                          bool equal_blocks = false) {
  if (requested != CollectiveSchedule::Auto) return requested;
  return linear_time(m, p, 0) <= tree_time(m, p, 0, equal_blocks) ? CollectiveSchedule::Linear
                                                                  : CollectiveSchedule::Tree;
}

}  // namespace Impl
}  // namespace KokkosDDT
