// SPDX-License-Identifier: BSD-3-Clause
// Ping-pong of noncontiguous vectors between two ranks: doubles in blocks of 8, 32 or 128 bytes at a stride of twice
// the block (50 % dense), packed messages of 1 KiB ... 64 MiB, in the default execution space's memory. Four ways:
//
//   kokkosddt     KokkosDDT::mpi::isend / irecv of the KokkosDDT vector type (the library stages and packs itself)
//   hand          a hand-written pack kernel into a contiguous buffer + MPI_Send / MPI_Recv + the unpack kernel
//   mpi_datatype  MPI_Type_vector sent and received by the MPI itself on the same buffers (only where the MPI can
//                 read them: host memory, or device memory with a GPU-aware MPI; '-' otherwise)
//   deep_copy     Kokkos::deep_copy of the strided subview into a contiguous View + MPI_Send / MPI_Recv + the reverse
//                 copy (what Kokkos Comm does)
//
// The contiguous buffers of hand and deep_copy live where the MPI can reach them, as KokkosDDT's staging does: in the
// execution space's memory when it is a host space or the MPI is GPU-aware, in pinned host memory (written directly by
// the kernels) otherwise. Every contender's message is checked once per case before timing (rank 0 -> rank 1 into a
// poisoned receive View: blocks copied, gaps untouched; a mismatch is reported on stderr and makes the exit status 1).
// Reports half the round trip (median over the iterations, timed on rank 0, a barrier before each). Writes CSV:
// space,block_bytes,message_bytes,contender,us.
//
//   mpiexec -n 2 pingpong_bench [--quick] [--csv pingpong.csv]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>

#include "support/Mpi.hpp"
#include "support/Options.hpp"
#include "support/Timing.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using M = Space::memory_space;
using Typed = Kokkos::View<double*, M>;
using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;

constexpr int kTag = 17;
constexpr std::int64_t kMiB = 1 << 20;

enum class Contender { kKokkosDDT, kHand, kMpiDatatype, kDeepCopy };

const char* contender_name(Contender who) {
  switch (who) {
    case Contender::kKokkosDDT:
      return "kokkosddt";
    case Contender::kHand:
      return "hand";
    case Contender::kMpiDatatype:
      return "mpi_datatype";
    case Contender::kDeepCopy:
      return "deep_copy";
  }
  return "?";
}

// One case: `count` blocks of `bl` doubles at a stride of 2 * bl doubles.
struct Case {
  Space space;
  std::int64_t count = 0, bl = 0;
  std::int64_t bytes = 0;                     // the packed message
  bool device_staging = false;                // the contiguous buffers in M (else pinned host memory)
  double* sbuf = nullptr;                     // contiguous send buffer (MPI-reachable)
  double* rbuf = nullptr;                     // contiguous receive buffer (MPI-reachable)
  KokkosDDT::Datatype type;                   // committed KokkosDDT vector
  MPI_Datatype mpi_type = MPI_DATATYPE_NULL;  // committed MPI vector (where the MPI reaches M)
};

void fill_index(const Space& space, const Typed& v) {
  Kokkos::parallel_for(
      "pingpong_bench::fill", Range(space, 0, static_cast<std::int64_t>(v.extent(0))),
      KOKKOS_LAMBDA(std::int64_t i) { v(i) = static_cast<double>(i); });
}

// The hand-written kernels: element k of the packed buffer is element k % bl of block k / bl.
void hand_copy(const Case& c, const Typed& v, double* buf, bool pack) {
  const std::int64_t bl = c.bl, stride = 2 * c.bl;
  if (pack)
    Kokkos::parallel_for(
        "pingpong_bench::pack", Range(c.space, 0, c.count * bl),
        KOKKOS_LAMBDA(std::int64_t k) { buf[k] = v(k / bl * stride + k % bl); });
  else
    Kokkos::parallel_for(
        "pingpong_bench::unpack", Range(c.space, 0, c.count * bl),
        KOKKOS_LAMBDA(std::int64_t k) { v(k / bl * stride + k % bl) = buf[k]; });
}

// Kokkos::deep_copy between the strided subview (the first bl columns of a count x 2 bl matrix over the typed buffer)
// and a contiguous count x bl matrix over the message buffer in memory space Staging.
template <class Staging>
void strided_copy(const Case& c, const Typed& v, double* buf, bool pack) {
  using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, M, Kokkos::MemoryUnmanaged>;
  const auto blocks = Kokkos::subview(Matrix(v.data(), c.count, 2 * c.bl), Kokkos::ALL,
                                      std::make_pair(static_cast<std::int64_t>(0), c.bl));
  const Kokkos::View<double**, Kokkos::LayoutRight, Staging, Kokkos::MemoryUnmanaged> packed(buf, c.count, c.bl);
  if (pack)
    Kokkos::deep_copy(c.space, packed, blocks);
  else
    Kokkos::deep_copy(c.space, blocks, packed);
}

void subview_copy(const Case& c, const Typed& v, double* buf, bool pack) {
  if (c.device_staging)
    strided_copy<M>(c, v, buf, pack);
  else
    strided_copy<Kokkos::SharedHostPinnedSpace>(c, v, buf, pack);
}

// Sends the typed data of v to peer (returns when the send buffer may be reused).
void send_message(const Case& c, Contender who, const Typed& v, int peer) {
  const int bytes = static_cast<int>(c.bytes);
  switch (who) {
    case Contender::kKokkosDDT:
      KokkosDDT::mpi::isend(c.space, v.data(), 1, c.type, peer, kTag, MPI_COMM_WORLD).wait();
      break;
    case Contender::kHand:
      hand_copy(c, v, c.sbuf, true);
      c.space.fence();
      MPI_Send(c.sbuf, bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD);
      break;
    case Contender::kMpiDatatype:
      MPI_Send(v.data(), 1, c.mpi_type, peer, kTag, MPI_COMM_WORLD);
      break;
    case Contender::kDeepCopy:
      subview_copy(c, v, c.sbuf, true);
      c.space.fence();
      MPI_Send(c.sbuf, bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD);
      break;
  }
}

// Receives typed data from peer into v (returns when v holds it).
void receive_message(const Case& c, Contender who, const Typed& v, int peer) {
  const int bytes = static_cast<int>(c.bytes);
  switch (who) {
    case Contender::kKokkosDDT:
      KokkosDDT::mpi::irecv(c.space, v.data(), 1, c.type, peer, kTag, MPI_COMM_WORLD).wait();
      break;
    case Contender::kHand:
      MPI_Recv(c.rbuf, bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      hand_copy(c, v, c.rbuf, false);
      c.space.fence();
      break;
    case Contender::kMpiDatatype:
      MPI_Recv(v.data(), 1, c.mpi_type, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      break;
    case Contender::kDeepCopy:
      MPI_Recv(c.rbuf, bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      subview_copy(c, v, c.rbuf, false);
      c.space.fence();
      break;
  }
}

// One ping (rank 0's send View -> rank 1's poisoned receive View), checked on rank 1: blocks hold their index, gaps
// stay -1. False (and a line on stderr) on a mismatch.
bool verify(const Case& c, Contender who, const Typed& sview, const Typed& rview, int rank) {
  Kokkos::deep_copy(c.space, rview, -1.0);
  c.space.fence();
  if (rank == 0) {
    send_message(c, who, sview, 1);
    return true;
  }
  receive_message(c, who, rview, 0);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rview);
  const std::int64_t n = static_cast<std::int64_t>(h.extent(0)), stride = 2 * c.bl;
  for (std::int64_t i = 0; i < n; ++i) {
    const double want = i % stride < c.bl ? static_cast<double>(i) : -1.0;
    if (h(i) != want) {
      std::fprintf(stderr, "pingpong_bench: %s, %lld-byte blocks, %lld-byte message: element %lld is %g, want %g\n",
                   contender_name(who), static_cast<long long>(c.bl * 8), static_cast<long long>(c.bytes),
                   static_cast<long long>(i), h(i), want);
      return false;
    }
  }
  return true;
}

// Half the round trip in microseconds (median; rank 0's clock), after 3 warm-up round trips.
double ping_pong(const Case& c, Contender who, const Typed& sview, const Typed& rview, int rank, int iterations) {
  auto once = [&] {
    if (rank == 0) {
      send_message(c, who, sview, 1);
      receive_message(c, who, rview, 1);
    } else {
      receive_message(c, who, rview, 0);
      send_message(c, who, rview, 0);
    }
  };
  for (int i = 0; i < 3; ++i) once();
  std::vector<double> t;
  for (int i = 0; i < iterations; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    once();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 2);
  }
  return bench::median(t);
}

// The whole benchmark on ranks 0 and 1; false when a contender delivered wrong data.
bool run(int rank, bool quick, const std::string& csv) {
  // Where the MPI itself may read and write M (then the contiguous buffers live there too).
  const bool mpi_reaches_m =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible || KokkosDDT::mpi::gpu_aware();
  FILE* out = rank == 0 ? std::fopen(csv.c_str(), "w") : nullptr;
  if (out) std::fprintf(out, "space,block_bytes,message_bytes,contender,us\n");
  if (rank == 0) {
    std::printf(
        "pingpong_bench: 2 ranks, %s, GPU-aware MPI: %s; vectors of doubles, stride = 2 x block (50 %% dense)\n",
        Space::name(), KokkosDDT::mpi::gpu_aware() ? "yes" : "no");
    std::printf("%11s %13s | %12s %12s %15s %12s | %14s %19s\n", "block_bytes", "message_bytes", "kokkosddt us",
                "hand us", "mpi_datatype us", "deep_copy us", "hand/kokkosddt", "deep_copy/kokkosddt");
  }
  const std::vector<std::int64_t> block_bytes =
      quick ? std::vector<std::int64_t>{8} : std::vector<std::int64_t>{8, 32, 128};
  std::vector<std::int64_t> message_bytes;
  if (quick)
    message_bytes = {1 << 10, 1 << 16};
  else
    for (std::int64_t s = 1 << 10; s <= 64 * kMiB; s *= 4) message_bytes.push_back(s);
  bool ok = true;
  for (const std::int64_t b : block_bytes)
    for (const std::int64_t s : message_bytes) {
      Case c;
      c.bl = b / 8;
      c.count = s / b;
      c.bytes = s;
      c.device_staging = mpi_reaches_m;
      const std::int64_t elements = c.count * 2 * c.bl, packed = c.count * c.bl;
      Typed sview("pingpong_bench::send", elements), rview("pingpong_bench::recv", elements);
      Kokkos::View<double*, M> sdev("pingpong_bench::sbuf", c.device_staging ? packed : 0),
          rdev("pingpong_bench::rbuf", c.device_staging ? packed : 0);
      Kokkos::View<double*, Kokkos::SharedHostPinnedSpace> spin("pingpong_bench::sbuf", c.device_staging ? 0 : packed),
          rpin("pingpong_bench::rbuf", c.device_staging ? 0 : packed);
      c.sbuf = c.device_staging ? sdev.data() : spin.data();
      c.rbuf = c.device_staging ? rdev.data() : rpin.data();
      c.type = KokkosDDT::vector(c.count, c.bl, 2 * c.bl, KokkosDDT::primitive<double>()).commit();
      if (mpi_reaches_m) {
        MPI_Type_vector(static_cast<int>(c.count), static_cast<int>(c.bl), static_cast<int>(2 * c.bl), MPI_DOUBLE,
                        &c.mpi_type);
        MPI_Type_commit(&c.mpi_type);
      }
      fill_index(c.space, sview);
      c.space.fence();
      std::vector<Contender> contenders{Contender::kKokkosDDT, Contender::kHand};
      if (mpi_reaches_m) contenders.push_back(Contender::kMpiDatatype);
      contenders.push_back(Contender::kDeepCopy);
      for (const Contender who : contenders) ok = verify(c, who, sview, rview, rank) && ok;
      const int iterations =
          static_cast<int>(std::max<std::int64_t>(10, std::min<std::int64_t>(200, 64 * kMiB / s * 2)));
      double us[4] = {0, 0, 0, 0};  // indexed by Contender
      for (const Contender who : contenders)
        us[static_cast<int>(who)] = ping_pong(c, who, sview, rview, rank, iterations);
      if (rank == 0) {
        const double tk = us[static_cast<int>(Contender::kKokkosDDT)], th = us[static_cast<int>(Contender::kHand)],
                     tm = us[static_cast<int>(Contender::kMpiDatatype)],
                     td = us[static_cast<int>(Contender::kDeepCopy)];
        std::printf("%11lld %13lld | %12.2f %12.2f ", static_cast<long long>(b), static_cast<long long>(s), tk, th);
        if (mpi_reaches_m)
          std::printf("%15.2f ", tm);
        else
          std::printf("%15s ", "-");
        std::printf("%12.2f | %13.2fx %18.2fx\n", td, th / tk, td / tk);
        std::fflush(stdout);
        for (const Contender who : contenders)
          if (out)
            std::fprintf(out, "%s,%lld,%lld,%s,%.3f\n", Space::name(), static_cast<long long>(b),
                         static_cast<long long>(s), contender_name(who), us[static_cast<int>(who)]);
      }
      if (c.mpi_type != MPI_DATATYPE_NULL) MPI_Type_free(&c.mpi_type);
    }
  if (out) std::fclose(out);
  if (rank == 0) std::printf("CSV: %s\n", csv.c_str());
  return ok;
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bool quick = false;
    std::string csv = "pingpong_bench.csv";
    bench::Options args("pingpong_bench");
    args.flag("--quick", quick, "8-byte blocks, 1 KiB and 64 KiB messages")
        .option("--csv", "FILE", csv, "write the rows as CSV");
    if (const auto done = args.parse(argc, argv, rank == 0)) return *done;
    if (size != 2) {
      if (rank == 0) std::printf("pingpong_bench: needs exactly 2 ranks (mpiexec -n 2), got %d; nothing to do\n", size);
    } else {
      failed = run(rank, quick, csv) ? 0 : 1;
      MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
  }
  return failed;
}
