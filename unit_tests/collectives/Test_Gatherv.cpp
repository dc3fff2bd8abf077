// SPDX-License-Identifier: BSD-3-Clause
// gatherv on Träff's tree against MPI_Gatherv of the same types, every root, under mpiexec -n p.
#include <KokkosDDT_Gatherv.hpp>
#include <KokkosDDT_MPI.hpp>
#include <random>
#include <vector>

#include "support/Catch.hpp"

using namespace KokkosDDT;

namespace {

// Block sizes of the seed's problem types (section 5) for p processes and base size b.
std::vector<std::int64_t> problem(const std::string& kind, int p, std::int64_t b) {
  std::vector<std::int64_t> m(p, b);
  std::mt19937 rng(42);
  for (int i = 0; i < p; ++i) {
    if (kind == "random") m[i] = rng() % (b + 1);
    if (kind == "spikes") m[i] = i % 3 == 0 ? 3 * b : 0;
    if (kind == "decreasing") m[i] = b * (p - i) / p;
    if (kind == "alternating") m[i] = i % 2 ? b : 0;
    if (kind == "two blocks") m[i] = i == 0 || i == p - 1 ? b * p / 2 : 0;
    if (kind == "zero") m[i] = 0;
    if (kind == "one") m[i] = i == p / 2 ? b : 0;
  }
  return m;
}

}  // namespace

TEST_CASE("collectives: the gather tree has ceil(log2 p) rounds and covers every rank once", "[collectives]") {
  int p = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (int root = 0; root < p; ++root) {
    const Impl::GatherTree t = Impl::build_gather_tree(MPI_COMM_WORLD, root, 1 + (me * 7) % 5, 900);
    int expected = 0;
    while ((1 << expected) < p) ++expected;
    CHECK(t.rounds == expected);
    CHECK((t.parent < 0) == (me == root));
    // Every rank is in exactly one cube received by the root, or is the root: the root's total is the sum.
    std::int64_t sum = 0, mine = 1 + (me * 7) % 5;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == root) CHECK(t.total == sum);
  }
}

TEST_CASE("collectives: gatherv equals MPI_Gatherv on the seed's problem types", "[collectives]") {
  int p = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  Kokkos::DefaultHostExecutionSpace space;
  // Noncontiguous on both sides: every other int on the send side, pairs with a gap of one int at the root.
  Datatype send = vector(1, 1, 2, primitive<int>());
  send = resized(send, 0, 8);
  send.commit();
  Datatype recv = resized(contiguous(1, primitive<int>()), 0, 8);
  recv.commit();
  MPI_Datatype msend = mpi::to_mpi(send), mrecv = mpi::to_mpi(recv);
  for (const char* kind : {"same", "random", "spikes", "decreasing", "alternating", "two blocks", "zero", "one"}) {
    const std::vector<std::int64_t> m = problem(kind, p, 5);
    for (int root = 0; root < p; ++root) {
      INFO(kind << " root " << root);
      std::vector<std::int64_t> displs(p);
      std::int64_t total = 0;
      for (int j = p - 1; j >= 0; --j) {  // blocks in reverse rank order at the root, one extent apart
        displs[j] = total;
        total += m[j] + 1;
      }
      std::vector<int> src(2 * m[me] + 1);
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = 1000 * me + static_cast<int>(i);
      std::vector<int> ours(2 * total + 2, -1), ref(2 * total + 2, -1);
      gatherv(space, src.data(), m[me], send, ours.data(), m, displs, recv, root, MPI_COMM_WORLD);
      std::vector<int> icounts(m.begin(), m.end()), idispls(displs.begin(), displs.end());
      MPI_Gatherv(src.data(), static_cast<int>(m[me]), msend, ref.data(), icounts.data(), idispls.data(), mrecv, root,
                  MPI_COMM_WORLD);
      if (me == root) CHECK(ours == ref);
    }
  }
  MPI_Type_free(&msend);
  MPI_Type_free(&mrecv);
}

TEST_CASE("collectives: scatterv equals MPI_Scatterv on the seed's problem types", "[collectives]") {
  int p = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  Kokkos::DefaultHostExecutionSpace space;
  Datatype send = resized(contiguous(1, primitive<int>()), 0, 8);  // one int, then a gap of one
  send.commit();
  Datatype recv = resized(vector(1, 1, 2, primitive<int>()), 0, 12);  // one int every three
  recv.commit();
  MPI_Datatype msend = mpi::to_mpi(send), mrecv = mpi::to_mpi(recv);
  for (const char* kind : {"same", "random", "spikes", "decreasing", "alternating", "two blocks", "zero", "one"}) {
    const std::vector<std::int64_t> m = problem(kind, p, 5);
    for (int root = 0; root < p; ++root) {
      INFO(kind << " root " << root);
      std::vector<std::int64_t> displs(p);
      std::int64_t total = 0;
      for (int j = p - 1; j >= 0; --j) {
        displs[j] = total;
        total += m[j] + 2;
      }
      std::vector<int> src(2 * total + 2);
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = 100000 * root + static_cast<int>(i);
      std::vector<int> ours(3 * m[me] + 3, -1), ref(3 * m[me] + 3, -1);
      scatterv(space, src.data(), m, displs, send, ours.data(), m[me], recv, root, MPI_COMM_WORLD);
      std::vector<int> icounts(m.begin(), m.end()), idispls(displs.begin(), displs.end());
      MPI_Scatterv(src.data(), icounts.data(), idispls.data(), msend, ref.data(), static_cast<int>(m[me]), mrecv, root,
                   MPI_COMM_WORLD);
      CHECK(ours == ref);
    }
  }
  MPI_Type_free(&msend);
  MPI_Type_free(&mrecv);
}
