// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// MPICH's MPI_Pack / MPI_Unpack on the exported type: the byte-for-byte reference.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "KokkosDDT.hpp"
#include "KokkosDDT_MPI.hpp"

namespace KokkosDDT::Test {

// Our bounds and extents follow MPICH (see TypeNode.cpp); other MPI libraries differ (sticky resized bounds, struct
// padding), so the byte-for-byte comparisons run only against MPICH.
inline bool mpi_is_reference() {
  static const bool mpich = [] {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    return std::string(version, len).find("MPICH") != std::string::npos;
  }();
  return mpich;
}

struct MpiType {
  MPI_Datatype handle;
  explicit MpiType(const Datatype& t) : handle(KokkosDDT::mpi::to_mpi(t)) {}
  ~MpiType() { MPI_Type_free(&handle); }
  MpiType(const MpiType&) = delete;
  MpiType& operator=(const MpiType&) = delete;
};

inline std::vector<char> mpi_pack(const Datatype& t, std::int64_t count, const void* user) {
  MpiType m(t);
  int bytes = 0;
  MPI_Pack_size(static_cast<int>(count), m.handle, MPI_COMM_SELF, &bytes);
  std::vector<char> out(bytes + 1);
  int position = 0;
  MPI_Pack(user, static_cast<int>(count), m.handle, out.data(), bytes, &position, MPI_COMM_SELF);
  out.resize(position);
  return out;
}

// MPICH 4.0.2 divides by zero when unpacking zero bytes (pmodels/mpich#6234): callers skip empty types.
inline void mpi_unpack(const Datatype& t, std::int64_t count, const std::vector<char>& packed, void* user) {
  MpiType m(t);
  int position = 0;
  MPI_Unpack(packed.data(), static_cast<int>(packed.size()), &position, user, static_cast<int>(count), m.handle,
             MPI_COMM_SELF);
}

struct MpiBounds {
  std::int64_t size, lb, extent, true_lb, true_extent;
};

inline MpiBounds mpi_bounds(const Datatype& t) {
  MpiType m(t);
#if MPI_VERSION >= 4
  MPI_Count size, lb, extent, tlb, textent;
  MPI_Type_size_c(m.handle, &size);
  MPI_Type_get_extent_c(m.handle, &lb, &extent);
  MPI_Type_get_true_extent_c(m.handle, &tlb, &textent);
#else
  int size;
  MPI_Aint lb, extent, tlb, textent;
  MPI_Type_size(m.handle, &size);
  MPI_Type_get_extent(m.handle, &lb, &extent);
  MPI_Type_get_true_extent(m.handle, &tlb, &textent);
#endif
  return {size, lb, extent, tlb, textent};
}

}  // namespace KokkosDDT::Test
