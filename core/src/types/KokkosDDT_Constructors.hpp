// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Every MPI type constructor, with MPI's argument order and meaning (counts, blocklengths and element displacements
// in units of the old type's extent; the h-variants and struct take byte displacements). Arguments are checked: a bad
// one throws KokkosDDT::Error naming it (InvalidArgument, Overflow or NullDatatype).

#include <cstdint>
#include <vector>

#include "KokkosDDT_Datatype.hpp"

namespace KokkosDDT {

Datatype contiguous(std::int64_t count, const Datatype& oldtype);

Datatype vector(std::int64_t count, std::int64_t blocklength, std::int64_t stride, const Datatype& oldtype);
Datatype hvector(std::int64_t count, std::int64_t blocklength, std::int64_t stride_bytes, const Datatype& oldtype);

Datatype indexed(std::int64_t count, const std::int64_t* blocklengths, const std::int64_t* displacements,
                 const Datatype& oldtype);
Datatype indexed(const std::vector<std::int64_t>& blocklengths, const std::vector<std::int64_t>& displacements,
                 const Datatype& oldtype);
Datatype hindexed(std::int64_t count, const std::int64_t* blocklengths, const std::int64_t* displacements_bytes,
                  const Datatype& oldtype);
Datatype hindexed(const std::vector<std::int64_t>& blocklengths, const std::vector<std::int64_t>& displacements_bytes,
                  const Datatype& oldtype);

Datatype indexed_block(std::int64_t count, std::int64_t blocklength, const std::int64_t* displacements,
                       const Datatype& oldtype);
Datatype indexed_block(std::int64_t blocklength, const std::vector<std::int64_t>& displacements,
                       const Datatype& oldtype);
Datatype hindexed_block(std::int64_t count, std::int64_t blocklength, const std::int64_t* displacements_bytes,
                        const Datatype& oldtype);
Datatype hindexed_block(std::int64_t blocklength, const std::vector<std::int64_t>& displacements_bytes,
                        const Datatype& oldtype);

// MPI_Type_create_subarray: 1 <= subsizes[i], 0 <= starts[i], starts[i] + subsizes[i] <= sizes[i]. The result has
// lb 0 and the extent of the whole array.
Datatype subarray(int ndims, const std::int64_t* sizes, const std::int64_t* subsizes, const std::int64_t* starts,
                  Order order, const Datatype& oldtype);
Datatype subarray(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& subsizes,
                  const std::vector<std::int64_t>& starts, Order order, const Datatype& oldtype);

// MPI_Type_create_darray: the block of a global `gsizes` array that process `rank` of a `psizes` process grid
// (row-major ranks, like MPI) holds under a block, cyclic or no distribution per dimension. `dargs[i]` is the
// distribution argument (kDefaultDarg: MPI's default, ceil(gsize / psize) for Block and 1 for Cyclic). The result has
// lb 0 and the extent of the whole array; it is built from hindexed and resized levels (the same type map as MPI's
// darray).
enum class Distribution { Block, Cyclic, None };
inline constexpr std::int64_t kDefaultDarg = -1;
Datatype darray(int size, int rank, const std::vector<std::int64_t>& gsizes, const std::vector<Distribution>& distribs,
                const std::vector<std::int64_t>& dargs, const std::vector<std::int64_t>& psizes, Order order,
                const Datatype& oldtype);

// MPI_Type_create_struct (`struct` is a C++ keyword).
Datatype struct_type(std::int64_t count, const std::int64_t* blocklengths, const std::int64_t* displacements_bytes,
                     const Datatype* types);
Datatype struct_type(const std::vector<std::int64_t>& blocklengths,
                     const std::vector<std::int64_t>& displacements_bytes, const std::vector<Datatype>& types);

// MPI_Type_create_resized: the same data with a new lower bound and extent (extent >= 0).
Datatype resized(const Datatype& oldtype, std::int64_t lb, std::int64_t extent);

// MPI_Type_dup: a new type with the same layout and signature.
Datatype dup(const Datatype& oldtype);

// Named primitives (also reachable through KokkosDDT::primitive<T>()).
Datatype named(Primitive p);
// Any trivially copyable T of `size` bytes and `alignment`, carried as `size` bytes (Primitive::Opaque).
Datatype opaque(std::int64_t size, std::int64_t alignment);

}  // namespace KokkosDDT
