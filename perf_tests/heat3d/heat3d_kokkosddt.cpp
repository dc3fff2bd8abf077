// SPDX-License-Identifier: BSD-3-Clause
// Kokkos Comm's 3-D heat benchmark with its halo exchange done by one KokkosDDT halo plan (faces, one ghost layer). It
// mirrors kokkos-comm's perf_tests/mpi/test_heat3d.cpp at commit 0de24c5 (grid, physics, timing phases and output; the
// CSV line is labelled Kokkos+DDT_MPI or Kokkos+DDT_NCCL), its deep_copy packs and KokkosComm::send/recv replaced by
// plan.start(space); interior kernel; plan.wait(); boundary kernel.
//
//   mpiexec -n 2 heat3d_kokkosddt [mpi | nccl | peer = mpi]
//
// perf_tests/heat3d/run_heat3d.sh builds the original and runs both, with the same arguments: Google Benchmark's
// options (--benchmark_*), which the original takes, are accepted here and ignored.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <optional>
#include <cctype>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>

#include "../support/Options.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;

template <class ExecSpace>
struct SpaceInstance {
  static ExecSpace create() { return ExecSpace(); }
  static void destroy(ExecSpace&) {}
};

#ifdef KOKKOS_ENABLE_CUDA
template <>
struct SpaceInstance<Kokkos::Cuda> {
  static Kokkos::Cuda create() {
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    return Kokkos::Cuda(stream);
  }
  static void destroy(Kokkos::Cuda& space) {
    cudaStream_t stream = space.cuda_stream();
    cudaStreamDestroy(stream);
  }
};
#endif

// The original's process grid (x fastest in the communicator's order) and, for the halo plan, the same grid as a
// non-periodic Cartesian communicator in which this process has the coordinates (x, y, z).
struct CommHelper {
  MPI_Comm comm;
  MPI_Comm cart;

  int nx, ny, nz;  // Num MPI ranks in each dimension
  int me;          // My rank
  int nranks;      // N ranks
  int x, y, z;     // My pos in proc grid

  CommHelper(MPI_Comm comm_, MPI_Comm cart_) : comm(comm_), cart(cart_) {
    MPI_Comm_size(comm, &nranks);
    MPI_Comm_rank(comm, &me);

    nx = std::pow(1.0 * nranks, 1.0 / 3.0);
    while (nranks % nx != 0) nx++;
    ny = std::sqrt(1.0 * (nranks / nx));
    while ((nranks / nx) % ny != 0) ny++;

    nz = nranks / nx / ny;
    x = me % nx;
    y = (me / nx) % ny;
    z = (me / nx / ny);
  }
};

MPI_Comm make_cart(MPI_Comm comm) {
  const CommHelper grid(comm, MPI_COMM_NULL);
  MPI_Comm ordered, cart;
  MPI_Comm_split(comm, 0, (grid.x * grid.ny + grid.y) * grid.nz + grid.z, &ordered);  // the Cartesian rank order
  int dims[3] = {grid.nx, grid.ny, grid.nz}, periods[3] = {0, 0, 0}, coords[3] = {-1, -1, -1}, rank = -1;
  MPI_Cart_create(ordered, 3, dims, periods, 0, &cart);
  MPI_Comm_free(&ordered);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  if (coords[0] != grid.x || coords[1] != grid.y || coords[2] != grid.z) {
    std::fprintf(stderr, "heat3d_kokkosddt: Cartesian coordinates differ from the process grid\n");
    MPI_Abort(comm, 1);
  }
  return cart;
}

// T holds one ghost layer on each side: cell (x, y, z) of the local box is T(x + 1, y + 1, z + 1), and the halo the
// original receives into T_left(y, z), T_right(y, z), T_down(x, z), T_up(x, z), T_front(x, y) and T_back(x, y) is the
// ghost layer next to that face. dT has no ghosts. The arithmetic is the original's, in the same order.
struct InnerDT {
  Kokkos::View<double***> T, dT;
  double q;

  KOKKOS_FUNCTION
  void operator()(int x, int y, int z) const {
    const int i = x + 1, j = y + 1, k = z + 1;
    double dT_xyz = 0.0;
    double T_xyz = T(i, j, k);
    dT_xyz += q * (T(i - 1, j, k) - T_xyz);
    dT_xyz += q * (T(i + 1, j, k) - T_xyz);
    dT_xyz += q * (T(i, j - 1, k) - T_xyz);
    dT_xyz += q * (T(i, j + 1, k) - T_xyz);
    dT_xyz += q * (T(i, j, k - 1) - T_xyz);
    dT_xyz += q * (T(i, j, k + 1) - T_xyz);

    dT(x, y, z) = dT_xyz;
  }
};

// The original's six surface kernels as one launch over the same cells, in their order: left and right (all y and z),
// down and up (x in [1, NX - 1), all z), front and back (x in [1, NX - 1), y in [1, NY - 1)).
struct BoundaryDT {
  Kokkos::View<double***> T, dT;
  int X_lo, Y_lo, Z_lo, X_hi, Y_hi, Z_hi, X, Y, Z;
  double q, sigma, P;
  int NX, NY, NZ;        // the local box
  int n_lr, n_du, n_fb;  // cells of one face of each pair
  int size() const { return 2 * (n_lr + n_du + n_fb); }

  KOKKOS_FUNCTION void operator()(int n) const {
    int x, y, z;
    if (n < 2 * n_lr) {
      const int f = n % n_lr;
      x = n < n_lr ? 0 : NX - 1;
      y = f / NZ;
      z = f % NZ;
    } else if ((n -= 2 * n_lr) < 2 * n_du) {
      const int f = n % n_du;
      x = 1 + f / NZ;
      y = n < n_du ? 0 : NY - 1;
      z = f % NZ;
    } else {
      n -= 2 * n_du;
      const int f = n % n_fb;
      x = 1 + f / (NY - 2);
      y = 1 + f % (NY - 2);
      z = n < n_fb ? 0 : NZ - 1;
    }
    const int i = x + 1, j = y + 1, k = z + 1;

    double dT_xyz = 0.0;
    double T_xyz = T(i, j, k);

    // Heat conduction to inner body
    if (x > 0) dT_xyz += q * (T(i - 1, j, k) - T_xyz);
    if (x < NX - 1) dT_xyz += q * (T(i + 1, j, k) - T_xyz);
    if (y > 0) dT_xyz += q * (T(i, j - 1, k) - T_xyz);
    if (y < NY - 1) dT_xyz += q * (T(i, j + 1, k) - T_xyz);
    if (z > 0) dT_xyz += q * (T(i, j, k - 1) - T_xyz);
    if (z < NZ - 1) dT_xyz += q * (T(i, j, k + 1) - T_xyz);

    // Heat conduction with Halo (the ghost layers the plan filled)
    if (x == 0 && X_lo != 0) dT_xyz += q * (T(0, j, k) - T_xyz);
    if (x == (NX - 1) && X_hi != X) dT_xyz += q * (T(NX + 1, j, k) - T_xyz);
    if (y == 0 && Y_lo != 0) dT_xyz += q * (T(i, 0, k) - T_xyz);
    if (y == (NY - 1) && Y_hi != Y) dT_xyz += q * (T(i, NY + 1, k) - T_xyz);
    if (z == 0 && Z_lo != 0) dT_xyz += q * (T(i, j, 0) - T_xyz);
    if (z == (NZ - 1) && Z_hi != Z) dT_xyz += q * (T(i, j, NZ + 1) - T_xyz);

    // Incoming Power
    if (x == 0 && X_lo == 0) dT_xyz += P;

    // thermal radiation
    int num_surfaces = ((x == 0 && X_lo == 0) ? 1 : 0) + ((x == (NX - 1) && X_hi == X) ? 1 : 0) +
                       ((y == 0 && Y_lo == 0) ? 1 : 0) + ((y == (NY - 1) && Y_hi == Y) ? 1 : 0) +
                       ((z == 0 && Z_lo == 0) ? 1 : 0) + ((z == (NZ - 1) && Z_hi == Z) ? 1 : 0);
    dT_xyz -= sigma * T_xyz * T_xyz * T_xyz * T_xyz * num_surfaces;
    dT(x, y, z) = dT_xyz;
  }
};

struct UpdateT {
  Kokkos::View<double***> T, dT;
  double dt;
  UpdateT(Kokkos::View<double***> T_, Kokkos::View<double***> dT_, double dt_) : T(T_), dT(dT_), dt(dt_) {}
  KOKKOS_FUNCTION
  void operator()(int x, int y, int z, double& sum_T) const {
    sum_T += T(x + 1, y + 1, z + 1);
    T(x + 1, y + 1, z + 1) += dt * dT(x, y, z);
  }
};

struct SystemDDT {
  // Communicator
  CommHelper comm;
  KokkosDDT::mpi::TransportChoice transport;
  KokkosDDT::mpi::HaloPlan<Space> plan;  // T's ghost layers, faces only

  // size of system
  int X, Y, Z;
  // Local box
  int X_lo, Y_lo, Z_lo;
  int X_hi, Y_hi, Z_hi;

  int N;  // number of timesteps
  int I;  // interval for print

  // Temperature (with ghost layers) and delta Temperature
  Kokkos::View<double***> T, dT;

  Space E_bulk;

  double T0;     // Initial temperature
  double dt;     // timestep width
  double q;      // thermal transfer coefficient
  double sigma;  // thermal radiation coefficient (assume Stefan Boltzmann law P = sigma*A*T^4
  double P;      // incoming power

  // init_system
  SystemDDT(MPI_Comm comm_, MPI_Comm cart_, const KokkosDDT::mpi::TransportChoice& transport_)
      : comm(comm_, cart_), transport(transport_) {
    X = Y = Z = 200;
    X_lo = Y_lo = Z_lo = 0;
    X_hi = Y_hi = Z_hi = X;
    N = 100;
    I = N - 1;
    T0 = 0.0;
    dt = 0.1;
    q = 1.0;
    sigma = 1.0;
    P = 1.0;
    E_bulk = SpaceInstance<Space>::create();
  }

  void destroy_exec_spaces() {
    plan = KokkosDDT::mpi::HaloPlan<Space>();  // (it holds the instance)
    SpaceInstance<Space>::destroy(E_bulk);
  }

  void setup_subdomain() {
    int dX = (X + comm.nx - 1) / comm.nx;
    X_lo = dX * comm.x;
    X_hi = X_lo + dX;
    if (X_hi > X) X_hi = X;
    int dY = (Y + comm.ny - 1) / comm.ny;
    Y_lo = dY * comm.y;
    Y_hi = Y_lo + dY;
    if (Y_hi > Y) Y_hi = Y;
    int dZ = (Z + comm.nz - 1) / comm.nz;
    Z_lo = dZ * comm.z;
    Z_hi = Z_lo + dZ;
    if (Z_hi > Z) Z_hi = Z;
    T = Kokkos::View<double***>("System::T", X_hi - X_lo + 2, Y_hi - Y_lo + 2, Z_hi - Z_lo + 2);
    dT = Kokkos::View<double***>("System::dT", X_hi - X_lo, Y_hi - Y_lo, Z_hi - Z_lo);
    Kokkos::deep_copy(T, T0);

    KokkosDDT::mpi::HaloOptions options;  // one ghost layer, the 6 face neighbours
    options.transport = transport;
    plan = KokkosDDT::mpi::make_halo_plan(E_bulk, comm.cart, options, T);
  }

  // run_time_loops
  void timestep(const char* label) {
    Kokkos::Timer timer;
    double old_time = 0.0;
    double time_all = 0.0;
    double GUPs = 0.0;
    double time_a, time_b, time_c, time_d;
    double time_inner, time_surface, time_update;
    time_inner = time_surface = time_update = 0.0;
    for (int t = 0; t <= N; t++) {
      if (t > N / 2) P = 0.0;
      time_a = timer.seconds();
      plan.start(E_bulk);  // Overlap O1: the packs (one launch); over MPI the receives are posted
      compute_inner_dT();  // Overlap O1
      Kokkos::fence();
      time_b = timer.seconds();
      plan.wait();  // the messages, then the unpacks (one launch) on E_bulk
      compute_surface_dT();
      Kokkos::fence();
      time_c = timer.seconds();
      double T_ave = update_T();
      time_d = timer.seconds();
      time_inner += time_b - time_a;
      time_surface += time_c - time_b;
      time_update += time_d - time_c;
      T_ave /= 1e-9 * (X * Y * Z);
      if ((t % I == 0 || t == N) && (comm.me == 0)) {
        double time = timer.seconds();
        time_all += time - old_time;
        GUPs += 1e-9 * (dT.size() / time_inner);
        if ((t == N) && (comm.me == 0)) {
          printf("heat3D,%s,%i,%i,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%i,%f\n", label, comm.nranks, t, T_ave, time_inner,
                 time_surface, time_update, time - old_time, /* time last iter */
                 time_all,                                   /* current runtime  */
                 GUPs / t, X, 1e-6 * (X * sizeof(double)));
          old_time = time;
        }
      }
    }
  }

  void compute_inner_dT() {
    using policy_t = Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>, Kokkos::IndexType<int>>;
    int myX = dT.extent(0);
    int myY = dT.extent(1);
    int myZ = dT.extent(2);
    Kokkos::parallel_for("InnerDT",
                         Kokkos::Experimental::require(policy_t(E_bulk, {1, 1, 1}, {myX - 1, myY - 1, myZ - 1}),
                                                       Kokkos::Experimental::WorkItemProperty::HintLightWeight),
                         InnerDT{T, dT, q});
  }

  void compute_surface_dT() {
    using policy_t = Kokkos::RangePolicy<Space, Kokkos::IndexType<int>>;
    const int x = dT.extent(0), y = dT.extent(1), z = dT.extent(2);
    const int n_lr = y * z, n_du = std::max(x - 2, 0) * z, n_fb = std::max(x - 2, 0) * std::max(y - 2, 0);
    BoundaryDT f{T, dT, X_lo, Y_lo, Z_lo, X_hi, Y_hi, Z_hi, X, Y, Z, q, sigma, P, x, y, z, n_lr, n_du, n_fb};
    Kokkos::parallel_for("ComputeSurfaceDT",
                         Kokkos::Experimental::require(policy_t(E_bulk, 0, f.size()),
                                                       Kokkos::Experimental::WorkItemProperty::HintLightWeight),
                         f);
  }

  double update_T() {
    using policy_t = Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>, Kokkos::IndexType<int>>;
    int x = dT.extent(0);
    int y = dT.extent(1);
    int z = dT.extent(2);
    double my_T = 0.0;
    Kokkos::parallel_reduce("UpdateT",
                            Kokkos::Experimental::require(policy_t(E_bulk, {0, 0, 0}, {x, y, z}, {10, 10, 10}),
                                                          Kokkos::Experimental::WorkItemProperty::HintLightWeight),
                            UpdateT(T, dT, dt), my_T);
    double sum_T;
    MPI_Allreduce(&my_T, &sum_T, 1, MPI_DOUBLE, MPI_SUM, comm.comm);
    return sum_T;
  }
};

// What Google Benchmark's console reporter prints for the original's
// BENCHMARK(...)->Iterations(1)->Repetitions(10)->ReportAggregatesOnly(false)->UseManualTime()->Unit(kMillisecond).
std::string format_time(double time) {
  char s[64];
  if (time < 1.0)
    std::snprintf(s, sizeof s, "%10.3f", time);
  else if (time < 10.0)
    std::snprintf(s, sizeof s, "%10.2f", time);
  else if (time < 100.0)
    std::snprintf(s, sizeof s, "%10.1f", time);
  else if (time > 9999999999)
    std::snprintf(s, sizeof s, "%1.4e", time);
  else
    std::snprintf(s, sizeof s, "%10.0f", time);
  return s;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void report(const std::string& name, const std::vector<double>& real, const std::vector<double>& cpu) {
  const int width = static_cast<int>(std::max<std::size_t>(10, name.size()) + 1 + 6);  // + "_" + longest statistic
  char header[256];
  std::snprintf(header, sizeof header, "%-*s %13s %15s %12s", width, "Benchmark", "Time", "CPU", "Iterations");
  const std::string line(std::string(header).size(), '-');
  std::printf("%s\n%s\n%s\n", line.c_str(), header, line.c_str());
  auto row = [&](const std::string& row_name, double real_ms, double cpu_ms, long long iterations) {
    std::printf("%-*s %s %-4s %s %-4s %10lld\n", width, row_name.c_str(), format_time(real_ms).c_str(), "ms",
                format_time(cpu_ms).c_str(), "ms", iterations);
  };
  for (std::size_t r = 0; r < real.size(); ++r) row(name, 1e3 * real[r], 1e3 * cpu[r], 1);
  const auto n = static_cast<double>(real.size());
  auto mean = [&](const std::vector<double>& v) {
    double s = 0;
    for (double e : v) s += e;
    return s / n;
  };
  auto median = [&](std::vector<double> v) {
    if (v.size() < 3) return mean(v);
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  auto stddev = [&](const std::vector<double>& v) {
    if (v.size() < 2) return 0.0;
    double squares = 0;
    for (double e : v) squares += e * e;
    const double m = mean(v);
    return std::sqrt(n / (n - 1.0) * (squares / n - m * m));
  };
  const auto reps = static_cast<long long>(real.size());
  row(name + "_mean", 1e3 * mean(real), 1e3 * mean(cpu), reps);
  row(name + "_median", 1e3 * median(real), 1e3 * median(cpu), reps);
  row(name + "_stddev", 1e3 * stddev(real), 1e3 * stddev(cpu), reps);
  const double cv_real = real.size() < 2 ? 0.0 : stddev(real) / mean(real);
  const double cv_cpu = cpu.size() < 2 ? 0.0 : stddev(cpu) / mean(cpu);
  std::printf("%-*s %10.2f %-4s %10.2f %-4s %10lld\n", width, (name + "_cv").c_str(), 100.0 * cv_real, "%",
              100.0 * cv_cpu, "%", reps);
}

}  // namespace

int main(int argc, char* argv[]) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided != MPI_THREAD_MULTIPLE) {  // (as the original's main)
    std::fprintf(stderr, "heat3d_kokkosddt: MPI_THREAD_MULTIPLE is needed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Kokkos::initialize();
  int status = 0;
  {
    std::string transport_name = "mpi";
    std::vector<std::string> benchmark_options;
    bench::Options args("heat3d_kokkosddt");
    args.positional("transport", transport_name, "the halo plan's transport", KokkosDDT::mpi::transports())
        .pass_through("--benchmark_", benchmark_options, "the original's Google Benchmark options: ignored");
    const std::optional<int> done = args.parse(argc, argv, rank == 0);
    for (const std::string& a : benchmark_options)  // (--benchmark_color: this program prints no colours anyway)
      if (!done && rank == 0 && a.rfind("--benchmark_color", 0) != 0)
        std::fprintf(stderr, "heat3d_kokkosddt: argument %s ignored\n", a.c_str());
    const KokkosDDT::mpi::TransportChoice transport = transport_name;
    std::string upper = transport.name();
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string label = "Kokkos+DDT_" + upper;
    const std::string name = "benchmark_heat3d_ddt/iterations:1/repeats:10/manual_time";
    if (done) {
      status = *done;
    } else if (!KokkosDDT::mpi::has_transport(transport)) {
      if (rank == 0) std::fprintf(stderr, "heat3d_kokkosddt: this build has no %s transport\n", transport_name.c_str());
      status = 2;
    } else {
      if (rank == 0) {
        char date[64];
        const std::time_t now = std::time(nullptr);
        std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
        std::string stamp(date);
        if (stamp.size() > 2) stamp.insert(stamp.size() - 2, ":");  // +HHMM as +HH:MM, as Google Benchmark prints it
        std::fprintf(stderr, "%s\nRunning %s\n", stamp.c_str(), argv[0]);
      }
      MPI_Comm cart = make_cart(MPI_COMM_WORLD);
      std::vector<double> real, cpu;
      try {
        for (int repetition = 0; repetition < 10; ++repetition) {
          const double cpu0 = thread_cpu_seconds();
          auto start = std::chrono::high_resolution_clock::now();
          SystemDDT sys(MPI_COMM_WORLD, cart, transport);
          sys.setup_subdomain();
          if (repetition == 0 && rank == 0)
            std::fprintf(stderr, "halo plan on rank 0 over %s: %d neighbours, %d messages, %lld bytes per step\n",
                         KokkosDDT::mpi::name(transport), sys.plan.neighbors(), sys.plan.messages(),
                         static_cast<long long>(sys.plan.bytes_per_step()));
          sys.timestep(label.c_str());
          sys.destroy_exec_spaces();
          auto end = std::chrono::high_resolution_clock::now();
          real.push_back(std::chrono::duration_cast<std::chrono::duration<double>>(end - start).count());
          cpu.push_back(thread_cpu_seconds() - cpu0);
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "heat3d_kokkosddt: rank %d: %s\n", rank, e.what());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      if (rank == 0) report(name, real, cpu);
      MPI_Comm_free(&cart);
    }
  }
  std::fflush(stdout);
  Kokkos::finalize();
  MPI_Finalize();
  return status;
}
