// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Träff's ordered gather tree (traff-gatherv19, Lemmas 2-3): built in ceil(log2 p) rounds of constant-size exchanges
// from each process's own block size alone. Level-k cubes are consecutive rank ranges [lo, lo + 2^k); at each level
// two adjacent cubes merge, and the gather root of the cube holding less data (never the MPI root's cube) sends all
// of it to the other's gather root. Every message is therefore a run of consecutive ranks, in rank order, and no
// process ever reorders blocks. The tree is used as is for gather and backwards for scatter.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace KokkosDDT::Impl {

struct GatherTree {
  struct Child {
    int round;           // the level at which the child's cube merged into ours
    int rank;            // the child (the gather root of that cube)
    std::int64_t bytes;  // all the data of its cube
    int lo, hi;          // its cube: ranks [lo, hi]
  };
  int parent = -1;  // -1: the MPI root
  int send_round = -1;
  std::int64_t total = 0;       // bytes this process holds once its children have sent (its cube's data)
  std::vector<Child> children;  // in rank order
  int rounds = 0;               // ceil(log2 p)
};

// The first rank of i's level-k cube and its last (p - 1 for the incomplete last cube).
inline int cube_lo(int i, int k) { return (i >> k) << k; }
inline int cube_hi(int i, int k, int p) { return std::min(cube_lo(i, k) + (1 << k) - 1, p - 1); }

// Collective over comm: every process passes its own block size; the root's cube wins every merge (m_r = infinity).
// Two exchanges per round at most (fixed roots swap {size, gather root, has root}; a fixed root that is not its
// cube's gather root forwards the verdict), messages of three integers.
inline GatherTree build_gather_tree(MPI_Comm comm, int root, std::int64_t my_bytes, int tag) {
  int p = 1, i = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &i);
  GatherTree t;
  while ((1 << t.rounds) < p) ++t.rounds;
  // Fixed-root state (the last rank of the current cube keeps it) and gather-root state.
  std::int64_t f_size = my_bytes, f_root = i, f_has = i == root;
  bool alive = true;
  t.total = my_bytes;
  auto apply = [&](int k, bool win, int other, std::int64_t other_bytes) {
    if (win) {
      const int lo = cube_lo(other, k), hi = cube_hi(other, k, p);
      t.children.push_back({k, other, other_bytes, lo, hi});
      t.total += other_bytes;
    } else {
      t.parent = other;
      t.send_round = k;
      alive = false;
    }
  };
  for (int k = 0; k < t.rounds; ++k) {
    const int base = (i >> (k + 1)) << (k + 1);
    if (base + (1 << k) > p - 1) continue;  // the incomplete last cube has no partner at this level
    const bool lower = ((i >> k) & 1) == 0;
    if ((i + 1) % (1 << k) == 0 || i == p - 1) {  // i is the fixed root of its level-k cube
      const int partner = lower ? std::min(i + (1 << k), p - 1) : cube_lo(i, k) - 1;
      std::int64_t mine[3] = {f_size, f_root, f_has}, other[3];
      MPI_Sendrecv(mine, 3, MPI_INT64_T, partner, tag, other, 3, MPI_INT64_T, partner, tag, comm, MPI_STATUS_IGNORE);
      const bool win = f_has ? true : other[2] ? false : f_size != other[0] ? f_size > other[0] : !lower;
      if (f_root == i) {
        if (alive) apply(k, win, static_cast<int>(other[1]), other[0]);
      } else {
        const std::int64_t verdict[3] = {win, other[1], other[0]};
        MPI_Send(verdict, 3, MPI_INT64_T, static_cast<int>(f_root), tag + 1, comm);
      }
      if (!lower) {  // the upper fixed root stays the fixed root of the merged cube
        f_root = win ? f_root : other[1];
        f_size += other[0];
        f_has = f_has || other[2];
      }
    } else if (alive) {  // the gather root of a cube whose fixed root is another process
      std::int64_t verdict[3];
      MPI_Recv(verdict, 3, MPI_INT64_T, cube_hi(i, k, p), tag + 1, comm, MPI_STATUS_IGNORE);
      apply(k, verdict[0] != 0, static_cast<int>(verdict[1]), verdict[2]);
    }
  }
  std::sort(t.children.begin(), t.children.end(), [](const auto& a, const auto& b) { return a.lo < b.lo; });
  return t;
}

}  // namespace KokkosDDT::Impl
