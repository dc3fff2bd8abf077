// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Conjugate gradients on the distributed matrix of cg_partition.hpp with Kokkos Kernels: KokkosSparse::spmv on the
// local CrsMatrix (owned columns, then ghost columns), KokkosBlas::dot / axpby / nrm2 on the owned entries, global sums
// with MPI_Allreduce. The search direction p is the only vector with ghost entries; the exchange fills them before
// every spmv. Any exchange of cg_exchange.hpp plugs in.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "cg_exchange.hpp"
#include "cg_partition.hpp"

namespace cg_example {

template <class Space>
using Matrix = KokkosSparse::CrsMatrix<double, int, Kokkos::Device<Space, typename Space::memory_space>, void, int>;

template <class Space>
Matrix<Space> local_matrix(const LocalProblem& lp) {
  using M = Matrix<Space>;
  const auto columns = std::int64_t(lp.owned + std::int64_t(lp.ghosts.size()));
  typename M::row_map_type::non_const_type row_map("cg::row_map", lp.row_map.size());
  typename M::index_type::non_const_type entries("cg::entries", lp.columns.size());
  typename M::values_type::non_const_type values("cg::values", lp.values.size());
  Kokkos::deep_copy(row_map, Kokkos::View<const int*, Kokkos::HostSpace>(lp.row_map.data(), lp.row_map.size()));
  Kokkos::deep_copy(entries, Kokkos::View<const int*, Kokkos::HostSpace>(lp.columns.data(), lp.columns.size()));
  Kokkos::deep_copy(values, Kokkos::View<const double*, Kokkos::HostSpace>(lp.values.data(), lp.values.size()));
  return M("cg::A", int(lp.owned), int(columns), int(lp.values.size()), values, row_map, entries);
}

struct CgResult {
  int iterations = 0;
  double relative_residual = 0;
  double seconds = 0, exchange_seconds = 0;  // the iterations' wall time (max over ranks) and its exchange part
  std::vector<double> x;                     // the owned entries of the solution
};

inline double global_sum(double local, MPI_Comm comm) {
  double global = 0;
  check_mpi(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  return global;
}

// Solves A x = 1 from x = 0 until ||r|| <= tolerance * ||b|| or max_iterations (tolerance 0: exactly max_iterations).
template <class Exchange, class Space>
CgResult conjugate_gradient(const Space& space, const LocalProblem& lp, MPI_Comm comm, double tolerance,
                            int max_iterations) {
  using Clock = std::chrono::steady_clock;
  const Matrix<Space> A = local_matrix<Space>(lp);
  const auto owned = std::pair<std::int64_t, std::int64_t>(0, lp.owned);
  Vector<Space> x("cg::x", lp.owned), r("cg::r", lp.owned), Ap("cg::Ap", lp.owned);
  Vector<Space> p_all("cg::p", lp.owned + std::int64_t(lp.ghosts.size()));  // owned entries, then ghosts
  auto p = Kokkos::subview(p_all, owned);
  Exchange exchange(space, lp, p_all, comm);  // built once, run every iteration

  Kokkos::deep_copy(r, 1.0);  // b = 1, x = 0: r = b
  Kokkos::deep_copy(p, r);
  const double b_norm = std::sqrt(global_sum(std::pow(KokkosBlas::nrm2(r), 2), comm));
  double rr = global_sum(KokkosBlas::dot(r, r), comm);

  CgResult result;
  MPI_Barrier(comm);
  const auto start = Clock::now();
  double exchange_seconds = 0;
  for (result.iterations = 0; result.iterations < max_iterations;) {
    if (tolerance > 0 && std::sqrt(rr) <= tolerance * b_norm) break;
    const auto exchange_start = Clock::now();
    exchange.run();
    exchange_seconds += std::chrono::duration<double>(Clock::now() - exchange_start).count();
    KokkosSparse::spmv("N", 1.0, A, p_all, 0.0, Ap);
    const double alpha = rr / global_sum(KokkosBlas::dot(p, Ap), comm);
    KokkosBlas::axpby(alpha, p, 1.0, x);    // x += alpha p
    KokkosBlas::axpby(-alpha, Ap, 1.0, r);  // r -= alpha Ap
    const double rr_next = global_sum(KokkosBlas::dot(r, r), comm);
    KokkosBlas::axpby(1.0, r, rr_next / rr, p);  // p = r + beta p
    rr = rr_next;
    ++result.iterations;
    if (rr == 0) break;
  }
  space.fence("cg::done");
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  MPI_Allreduce(&seconds, &result.seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&exchange_seconds, &result.exchange_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  result.relative_residual = std::sqrt(rr) / b_norm;
  result.x.resize(lp.owned);
  Kokkos::deep_copy(Kokkos::View<double*, Kokkos::HostSpace>(result.x.data(), result.x.size()), x);
  return result;
}

}  // namespace cg_example
