// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The two type builders every micro-application's datatype is written against, once: KokkosDDT constructors
// (DdtBuilder) and the linked MPI's MPI_Type_* calls (MpiBuilder). A micro-app's build<B>(B&) makes the same type with
// either, so the engines are compared on the same constructors, nesting and displacement kinds, and creation + commit
// is timed for both with the same calls.

#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <KokkosDDT.hpp>

namespace ddtbench {

// Absolute address of an object, as MPI_Get_address gives it (for types used with KokkosDDT::bottom / MPI_BOTTOM).
inline std::int64_t address_of(const void* p) { return static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(p)); }

struct DdtBuilder {
  using Type = KokkosDDT::Datatype;
  template <class T>
  Type base() {
    return KokkosDDT::primitive<T>();
  }
  Type contiguous(std::int64_t n, const Type& t) { return KokkosDDT::contiguous(n, t); }
  Type vector(std::int64_t n, std::int64_t bl, std::int64_t stride, const Type& t) {
    return KokkosDDT::vector(n, bl, stride, t);
  }
  Type hvector(std::int64_t n, std::int64_t bl, std::int64_t stride_bytes, const Type& t) {
    return KokkosDDT::hvector(n, bl, stride_bytes, t);
  }
  Type indexed(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps, const Type& t) {
    return KokkosDDT::indexed(bls, disps, t);
  }
  Type indexed_block(std::int64_t bl, const std::vector<std::int64_t>& disps, const Type& t) {
    return KokkosDDT::indexed_block(bl, disps, t);
  }
  Type hindexed(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps_bytes, const Type& t) {
    return KokkosDDT::hindexed(bls, disps_bytes, t);
  }
  Type subarray(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& subsizes,
                const std::vector<std::int64_t>& starts, const Type& t) {  // Fortran order, as the applications
    return KokkosDDT::subarray(sizes, subsizes, starts, KokkosDDT::Order::Fortran, t);
  }
  Type struct_type(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps_bytes,
                   const std::vector<Type>& types) {
    return KokkosDDT::struct_type(bls, disps_bytes, types);
  }
  Type resized(const Type& t, std::int64_t lb, std::int64_t extent) { return KokkosDDT::resized(t, lb, extent); }
  Type commit(Type t) {
    t.commit();
    return t;
  }
};

// MPI_Type_* with the intermediate types freed when the builder goes (MPI keeps what a committed type needs).
class MpiBuilder {
 public:
  using Type = MPI_Datatype;
  MpiBuilder() = default;
  MpiBuilder(const MpiBuilder&) = delete;
  MpiBuilder& operator=(const MpiBuilder&) = delete;
  ~MpiBuilder() {
    for (MPI_Datatype& t : made_) MPI_Type_free(&t);
  }

  template <class T>
  Type base() {
    if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
    if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
    if constexpr (std::is_same_v<T, int>) return MPI_INT;
    if constexpr (std::is_same_v<T, Kokkos::complex<float>>) return MPI_C_FLOAT_COMPLEX;
    if constexpr (std::is_same_v<T, Kokkos::complex<double>>) return MPI_C_DOUBLE_COMPLEX;
    return MPI_DATATYPE_NULL;
  }
  Type contiguous(std::int64_t n, Type t) { return keep(MPI_Type_contiguous(to_int(n), t, &out_), "contiguous"); }
  Type vector(std::int64_t n, std::int64_t bl, std::int64_t stride, Type t) {
    return keep(MPI_Type_vector(to_int(n), to_int(bl), to_int(stride), t, &out_), "vector");
  }
  Type hvector(std::int64_t n, std::int64_t bl, std::int64_t stride_bytes, Type t) {
    return keep(MPI_Type_create_hvector(to_int(n), to_int(bl), stride_bytes, t, &out_), "hvector");
  }
  Type indexed(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps, Type t) {
    const std::vector<int> b = ints(bls), d = ints(disps);
    return keep(MPI_Type_indexed(to_int(b.size()), b.data(), d.data(), t, &out_), "indexed");
  }
  Type indexed_block(std::int64_t bl, const std::vector<std::int64_t>& disps, Type t) {
    const std::vector<int> d = ints(disps);
    return keep(MPI_Type_create_indexed_block(to_int(d.size()), to_int(bl), d.data(), t, &out_), "indexed_block");
  }
  Type hindexed(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps_bytes, Type t) {
    const std::vector<int> b = ints(bls);
    const std::vector<MPI_Aint> d(disps_bytes.begin(), disps_bytes.end());
    return keep(MPI_Type_create_hindexed(to_int(b.size()), b.data(), d.data(), t, &out_), "hindexed");
  }
  Type subarray(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& subsizes,
                const std::vector<std::int64_t>& starts, Type t) {
    const std::vector<int> s = ints(sizes), ss = ints(subsizes), st = ints(starts);
    return keep(MPI_Type_create_subarray(to_int(s.size()), s.data(), ss.data(), st.data(), MPI_ORDER_FORTRAN, t, &out_),
                "subarray");
  }
  Type struct_type(const std::vector<std::int64_t>& bls, const std::vector<std::int64_t>& disps_bytes,
                   const std::vector<Type>& types) {
    const std::vector<int> b = ints(bls);
    const std::vector<MPI_Aint> d(disps_bytes.begin(), disps_bytes.end());
    return keep(MPI_Type_create_struct(to_int(b.size()), b.data(), d.data(), types.data(), &out_), "struct");
  }
  Type resized(Type t, std::int64_t lb, std::int64_t extent) {
    return keep(MPI_Type_create_resized(t, lb, extent, &out_), "resized");
  }
  // The result: committed and handed to the caller (who frees it).
  Type commit(Type t) {
    if (MPI_Type_commit(&t) != MPI_SUCCESS) throw std::runtime_error("MPI_Type_commit failed");
    for (auto it = made_.begin(); it != made_.end(); ++it)
      if (*it == t) {
        made_.erase(it);
        break;
      }
    return t;
  }

 private:
  static int to_int(std::int64_t v) {
    if (v < INT32_MIN || v > INT32_MAX) throw std::runtime_error("ddtbench: a count does not fit MPI's int");
    return static_cast<int>(v);
  }
  static std::vector<int> ints(const std::vector<std::int64_t>& v) {
    std::vector<int> r;
    r.reserve(v.size());
    for (std::int64_t x : v) r.push_back(to_int(x));
    return r;
  }
  Type keep(int rc, const char* what) {
    if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI_Type_") + what + " failed");
    made_.push_back(out_);
    return out_;
  }
  MPI_Datatype out_ = MPI_DATATYPE_NULL;
  std::vector<MPI_Datatype> made_;
};

}  // namespace ddtbench
