// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One ddtbench micro-application (ddtbench12) at one problem size: the application's arrays, its own pack and unpack
// loops, and the datatypes that replace them (send side and receive side), written once against a type builder (see
// Builders.hpp) so that KokkosDDT and the linked MPI build the same type. The layouts, loops, index lists and
// problem sizes follow the original ddtbench (its C and Fortran sources), with the bugs of its C version fixed.
//
// Every array lives in host memory (the manual loops, MPI_Pack); a run on a device works on a device copy of the
// same arrays. Types with absolute addresses (MPI_BOTTOM in the original) are built for the copy they move.

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>

#include "Builders.hpp"

namespace ddtbench {

using Exec = Kokkos::DefaultExecutionSpace;  // the hand-written kernels run here (CUDA in CUDA builds)
using ExecMem = Exec::memory_space;

// The arrays of one copy of the application state.
using Arrays = std::vector<char*>;

// Where a type is applied: `count` instances from array `array` + `offset` bytes, or from KokkosDDT::bottom /
// MPI_BOTTOM when the type holds absolute addresses.
struct Origin {
  int array = 0;
  std::int64_t offset = 0;
  bool absolute = false;
  std::int64_t count = 1;
  char* at(const Arrays& a) const { return absolute ? nullptr : a[array] + offset; }
};

class MicroApp {
 public:
  virtual ~MicroApp() = default;

  std::string test;         // ddtbench's test name, e.g. "SPECFEM3D_oc"
  std::string size;         // the problem-size set, e.g. "c=4 (3225 of 88881)"
  bool same_wire = true;    // the manual loop and the datatype put the data on the wire in the same order
  bool is_default = false;  // the set the GPU goals refer to (the first of ddtbench's list)

  std::int64_t packed_bytes = 0;
  std::vector<std::int64_t> array_bytes;

  // The application's own loops (host, one thread).
  virtual void manual_pack(const Arrays& a, char* buf) const = 0;
  virtual void manual_unpack(const Arrays& a, const char* buf) const = 0;

  // The same as one kernel each on Exec, the way a hand-written device pack looks (index arithmetic or the index list,
  // one thread per packed element or per contiguous block). Arrays in Exec's memory.
  virtual void hand_pack(const Exec& space, const Arrays& a, char* buf) const = 0;
  virtual void hand_unpack(const Exec& space, const Arrays& a, const char* buf) const = 0;

  // Send and receive datatypes and where they apply.
  virtual KokkosDDT::Datatype send_ddt(const Arrays& a) const = 0;
  virtual KokkosDDT::Datatype recv_ddt(const Arrays& a) const = 0;
  virtual MPI_Datatype send_mpi(const Arrays& a) const = 0;
  virtual MPI_Datatype recv_mpi(const Arrays& a) const = 0;
  Origin send_at, recv_at;

  // Fills the arrays as ddtbench does: unique increasing values in memory order, one array after the other, in the
  // arrays' element type (float or double, element_size bytes).
  int element_size = 4;
  void fill(const Arrays& a) const;

  // Host arrays, allocated for this problem size.
  std::vector<Kokkos::View<char*, Kokkos::HostSpace>> host;
  Arrays host_arrays() const {
    Arrays a;
    for (const auto& v : host) a.push_back(v.data());
    return a;
  }

 protected:
  void allocate(const std::vector<std::int64_t>& bytes) {
    array_bytes = bytes;
    for (std::int64_t b : bytes) host.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ddtbench"), b);
  }
};

// The virtual type builders of MicroApp from one template per side: D::send_type(B&, const Arrays&) and
// D::recv_type(B&, const Arrays&).
template <class D>
class App : public MicroApp {
 public:
  KokkosDDT::Datatype send_ddt(const Arrays& a) const override {
    DdtBuilder b;
    return b.commit(self().send_type(b, a));
  }
  KokkosDDT::Datatype recv_ddt(const Arrays& a) const override {
    DdtBuilder b;
    return b.commit(self().recv_type(b, a));
  }
  MPI_Datatype send_mpi(const Arrays& a) const override {
    MpiBuilder b;
    return b.commit(self().send_type(b, a));
  }
  MPI_Datatype recv_mpi(const Arrays& a) const override {
    MpiBuilder b;
    return b.commit(self().recv_type(b, a));
  }

 private:
  const D& self() const { return static_cast<const D&>(*this); }
};

// ddtbench's unique increasing fill, in the element type T, continuing `base` across arrays.
template <class T>
void fill_unique(char* array, std::int64_t bytes, double& base) {
  T* a = reinterpret_cast<T*>(array);
  for (std::int64_t i = 0; i < bytes / static_cast<std::int64_t>(sizeof(T)); ++i) a[i] = static_cast<T>(base++);
}

inline void MicroApp::fill(const Arrays& a) const {
  double base = 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (element_size == 8)
      fill_unique<double>(a[i], array_bytes[i], base);
    else
      fill_unique<float>(a[i], array_bytes[i], base);
  }
}

// ddtbench's index lists: `n` distinct indices out of [0, range), unsorted (a shuffle), here from a fixed seed.
inline std::vector<std::int64_t> random_list(std::int64_t n, std::int64_t range, unsigned seed) {
  std::vector<std::int64_t> s(range);
  for (std::int64_t i = 0; i < range; ++i) s[i] = i;
  std::mt19937_64 rng(seed);
  for (std::int64_t i = 0; i < range; ++i) std::swap(s[i], s[rng() % range]);
  s.resize(n);
  return s;
}

// A host list copied to Exec's memory (for the hand kernels).
inline Kokkos::View<std::int64_t*, ExecMem> device_list(const std::vector<std::int64_t>& v) {
  Kokkos::View<std::int64_t*, ExecMem> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ddtbench list"), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const std::int64_t*, Kokkos::HostSpace>(v.data(), v.size()));
  return d;
}

// Hand-kernel building blocks: packed element i of type T <-> typed element idx(i) of one array.
template <class T, class Index>
void gather(const Exec& space, const char* label, std::int64_t n, const char* src, char* dst, const Index& idx) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec>(space, 0, n), KOKKOS_LAMBDA(std::int64_t i) { d[i] = s[idx(i)]; });
}
template <class T, class Index>
void scatter(const Exec& space, const char* label, std::int64_t n, const char* src, char* dst, const Index& idx) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec>(space, 0, n), KOKKOS_LAMBDA(std::int64_t i) { d[idx(i)] = s[i]; });
}

// The micro-apps at ddtbench's problem sizes (all of them, or the smallest set of each test).
using AppList = std::vector<std::unique_ptr<MicroApp>>;
void add_face_apps(AppList& apps, bool smallest_only);          // WRF, MILC, NAS_MG, NAS_LU
void add_unstructured_apps(AppList& apps, bool smallest_only);  // SPECFEM3D_oc/cm, LAMMPS_full/atomic
void add_transpose_apps(AppList& apps, bool smallest_only);     // FFT, SPECFEM3D_mt

}  // namespace ddtbench
