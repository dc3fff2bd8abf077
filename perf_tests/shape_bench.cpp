// SPDX-License-Identifier: BSD-3-Clause
// Canonical shapes on the host (issue 72): per-call time of small and mid-sized packs and unpacks of strided shapes
// (KokkosDDT_Shape.hpp) on one host thread, in one run: KokkosDDT::pack/unpack (their checks, then the shape's loop
// nest), the descriptor walk those calls ran before (HostWalk::walk on the same committed type, called directly), the
// loop nest alone (HostWalk::walk_shape), and MPI_Pack/MPI_Unpack of the same type (to_mpi). Prints a table, writes
// CSV.
//
//   shape_bench [--quick] [--csv FILE] [--min-seconds S]
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "KokkosDDT_Launch_impl.hpp"
#include "support/Mpi.hpp"
#include "support/OneThread.hpp"
#include "support/Options.hpp"
#include "support/Timing.hpp"

namespace {

using namespace KokkosDDT;
using Host = Kokkos::DefaultHostExecutionSpace;

struct Case {
  std::string name;
  Datatype type;
};

std::vector<Case> cases(bool quick) {
  const Datatype d = named(Primitive::Double), f = named(Primitive::Float);
  std::vector<Case> c = {
      {"vector 12 x 5 doubles (480 B)", vector(12, 5, 5 * 12, d)},
      {"column 64 doubles", vector(64, 1, 64, d)},
      {"vector 18 x 34 doubles", vector(18, 34, 34 * 18, d)},
      {"face 16x16 of 64^3 doubles", subarray({64, 64, 64}, {16, 1, 16}, {0, 5, 0}, Order::C, d)},
      {"box 8x8x8 of 64^3 doubles", subarray({64, 64, 64}, {8, 8, 8}, {4, 4, 4}, Order::C, d)},
      {"x-face 64x64 of 64^3 floats", subarray({64, 64, 64}, {64, 64, 1}, {0, 0, 3}, Order::C, f)},
  };
  if (!quick)
    c.push_back({"box 32x32x32 of 64^3 doubles", subarray({64, 64, 64}, {32, 32, 32}, {8, 8, 8}, Order::C, d)});
  return c;
}

// The descriptor walk for the whole transfer on the calling thread, as launch_traversal_words ran a single-tile host
// transfer before shapes (the same functor, built the same way).
template <Impl::Direction Dir>
void walk(const Host& space, const Impl::CommittedType& t, char* typed, char* packed, std::int64_t n, int word) {
  Impl::with_word_size(word, [&](auto w) {
    constexpr int W = decltype(w)::value;
    const Impl::HostWalk<Host, Dir, W> k{Impl::make_args<Host, Impl::LaunchShape<Host>, W>(
        space, Impl::descriptor<Kokkos::HostSpace>(t, space), typed, packed, 0, n)};
    k.walk(t.nodes.data(), 0, n);
  });
}

// The shape's loop nest alone (what pack() runs for a Strided shape after its checks).
template <Impl::Direction Dir>
void loop_nest(const Impl::CommittedType& t, char* typed, char* packed, std::int64_t n, int word) {
  Impl::with_word_size(word, [&](auto w) {
    constexpr int W = decltype(w)::value;
    Impl::TraversalArgs<Kokkos::HostSpace> a;
    a.typed = typed;
    a.packed = packed;
    a.end = n;
    Impl::HostWalk<Host, Dir, W>{a}.walk_shape(t.shape, t.lookaside.data(), 0, n);
  });
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  bool quick = false;
  std::string csv_path;
  double min_seconds = 0.5;
  bench::Options args("shape_bench");
  args.flag("--quick", quick, "fewer cases, shorter timing")
      .option("--csv", "FILE", csv_path, "write every measurement as CSV")
      .option("--min-seconds", "S", min_seconds, "timing per case");
  if (const auto done = args.parse(argc, argv)) return *done;
  if (quick) min_seconds = 0.05;
  const Host all;
  const Host space = bench::one_thread(all);
  std::FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (csv) std::fprintf(csv, "case,bytes,shape,dir,call_us,walk_us,loop_nest_us,mpi_us\n");
  std::printf("KokkosDDT %s canonical shapes on one %s thread: us per call (medians, interleaved)\n", KOKKOSDDT_VERSION,
              Host::name());
  std::printf("%-32s %8s %7s | %7s %7s %7s %8s | %7s %7s %7s %8s\n", "type", "bytes", "shape", "pack", "walk", "loops",
              "MPI_Pack", "unpack", "walk", "loops", "MPI_Unp.");
  for (Case& c : cases(quick)) {
    c.type.commit();
    const Impl::CommittedType& t = c.type.impl_committed("shape_bench");
    const std::int64_t n = c.type.size();
    std::vector<char> typed(static_cast<std::size_t>(t.data_ub), 1), packed(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < typed.size(); ++i) typed[i] = static_cast<char>(i * 7);
    MPI_Datatype m = mpi::to_mpi(c.type);
    MPI_Type_commit(&m);
    const int word = t.word_single;
    int at = 0;
    std::vector<char> check(static_cast<std::size_t>(n));
    pack(space, typed.data(), 1, c.type, packed.data(), n);
    MPI_Pack(typed.data(), 1, m, check.data(), static_cast<int>(n), &at, MPI_COMM_SELF);
    if (std::memcmp(packed.data(), check.data(), static_cast<std::size_t>(n)) != 0) {
      std::fprintf(stderr, "shape_bench: %s: pack differs from MPI_Pack\n", c.name.c_str());
      return 1;
    }
    const auto p = bench::interleaved_medians_us(
        {[&] { pack(space, typed.data(), 1, c.type, packed.data(), n); },
         [&] { walk<Impl::Direction::Pack>(space, t, typed.data(), packed.data(), n, word); },
         [&] { loop_nest<Impl::Direction::Pack>(t, typed.data(), packed.data(), n, word); },
         [&] {
           int pos = 0;
           MPI_Pack(typed.data(), 1, m, packed.data(), static_cast<int>(n), &pos, MPI_COMM_SELF);
         }},
        min_seconds);
    const auto u = bench::interleaved_medians_us(
        {[&] { unpack(space, packed.data(), n, typed.data(), 1, c.type); },
         [&] { walk<Impl::Direction::Unpack>(space, t, typed.data(), packed.data(), n, word); },
         [&] { loop_nest<Impl::Direction::Unpack>(t, typed.data(), packed.data(), n, word); },
         [&] {
           int pos = 0;
           MPI_Unpack(packed.data(), static_cast<int>(n), &pos, typed.data(), 1, m, MPI_COMM_SELF);
         }},
        min_seconds);
    const char* shape = t.shape.kind == Impl::Shape::Kind::Contig    ? "contig"
                        : t.shape.kind == Impl::Shape::Kind::Strided ? "strided"
                                                                     : "general";
    std::printf("%-32s %8lld %7s | %7.3f %7.3f %7.3f %8.3f | %7.3f %7.3f %7.3f %8.3f\n", c.name.c_str(),
                static_cast<long long>(n), shape, p[0], p[1], p[2], p[3], u[0], u[1], u[2], u[3]);
    if (csv) {
      std::fprintf(csv, "\"%s\",%lld,%s,pack,%.4f,%.4f,%.4f,%.4f\n", c.name.c_str(), static_cast<long long>(n), shape,
                   p[0], p[1], p[2], p[3]);
      std::fprintf(csv, "\"%s\",%lld,%s,unpack,%.4f,%.4f,%.4f,%.4f\n", c.name.c_str(), static_cast<long long>(n), shape,
                   u[0], u[1], u[2], u[3]);
    }
    MPI_Type_free(&m);
  }
  if (csv) std::fclose(csv);
  if (csv) std::printf("CSV: %s\n", csv_path.c_str());
  return 0;
}
