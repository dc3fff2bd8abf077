// SPDX-License-Identifier: BSD-3-Clause
// MPI_Type_create_darray as a composition of hindexed and resized levels (MPI-3.1, Sec. 4.1.4): per dimension, the
// ascending index blocks this process owns; the type is their product in array order, fastest dimension innermost,
// each level resized to the pitch of its dimension so that the next level steps by whole rows.

#include <string>
#include <vector>

#include "KokkosDDT_Constructors.hpp"
#include "KokkosDDT_Error.hpp"

namespace KokkosDDT {

namespace {

constexpr const char* kWhere = "KokkosDDT::darray";

// "name[d]". (Appended piece by piece: GCC 12's -Wrestrict misfires on "[" + std::to_string(d) in C++20.)
std::string element(const char* name, int d) {
  std::string s(name);
  s += '[';
  s += std::to_string(d);
  s += ']';
  return s;
}

struct Blocks {
  std::vector<std::int64_t> starts, lengths;  // in elements of the dimension, ascending
};

// The blocks of dimension `d` that grid coordinate `coord` owns.
Blocks owned(std::int64_t gsize, Distribution distrib, std::int64_t darg, std::int64_t psize, std::int64_t coord,
             int d) {
  Blocks b;
  if (distrib == Distribution::None) {
    if (psize != 1)
      Impl::throw_error(ErrorCode::InvalidArgument, kWhere, element("psizes", d),
                        "is " + std::to_string(psize) + "; an undistributed dimension needs 1");
    b.starts.push_back(0);
    b.lengths.push_back(gsize);
    return b;
  }
  if (darg != kDefaultDarg && darg < 1)
    Impl::throw_error(ErrorCode::InvalidArgument, kWhere, element("dargs", d),
                      "is " + std::to_string(darg) + "; must be >= 1 or kDefaultDarg");
  if (distrib == Distribution::Block) {
    const std::int64_t block = darg == kDefaultDarg ? (gsize + psize - 1) / psize : darg;
    if (Impl::checked_mul(block, psize, kWhere, "dargs") < gsize)
      Impl::throw_error(ErrorCode::InvalidArgument, kWhere, element("dargs", d),
                        "is " + std::to_string(block) + "; block distribution needs dargs * psizes >= gsizes");
    const std::int64_t start = Impl::checked_mul(coord, block, kWhere, "dargs");
    if (start < gsize) {
      b.starts.push_back(start);
      b.lengths.push_back(std::min(block, gsize - start));
    }
    return b;
  }
  const std::int64_t block = darg == kDefaultDarg ? 1 : darg;  // Cyclic
  const std::int64_t cycle = Impl::checked_mul(block, psize, kWhere, "dargs");
  for (std::int64_t start = Impl::checked_mul(coord, block, kWhere, "dargs"); start < gsize; start += cycle) {
    b.starts.push_back(start);
    b.lengths.push_back(std::min(block, gsize - start));
    if (start > gsize - cycle) break;  // (the next start would be past the end, or overflow)
  }
  return b;
}

}  // namespace

Datatype darray(int size, int rank, const std::vector<std::int64_t>& gsizes, const std::vector<Distribution>& distribs,
                const std::vector<std::int64_t>& dargs, const std::vector<std::int64_t>& psizes, Order order,
                const Datatype& oldtype) {
  const int ndims = static_cast<int>(gsizes.size());
  if (ndims < 1) Impl::throw_error(ErrorCode::InvalidArgument, kWhere, "gsizes", "is empty; ndims must be >= 1");
  for (const auto& [n, name] :
       {std::pair{distribs.size(), "distribs"}, std::pair{dargs.size(), "dargs"}, std::pair{psizes.size(), "psizes"}})
    if (n != gsizes.size())
      Impl::throw_error(ErrorCode::InvalidArgument, kWhere, name,
                        "has " + std::to_string(n) + " entries but gsizes has " + std::to_string(ndims));
  if (order != Order::C && order != Order::Fortran)
    Impl::throw_error(ErrorCode::InvalidArgument, kWhere, "order", "is neither Order::C nor Order::Fortran");
  if (oldtype.is_null())
    Impl::throw_error(ErrorCode::NullDatatype, kWhere, "oldtype", "is a null datatype (default-constructed or freed)");
  std::int64_t processes = 1;
  for (int d = 0; d < ndims; ++d) {
    if (gsizes[d] < 1)
      Impl::throw_error(ErrorCode::InvalidArgument, kWhere, element("gsizes", d),
                        "is " + std::to_string(gsizes[d]) + "; must be >= 1");
    if (psizes[d] < 1)
      Impl::throw_error(ErrorCode::InvalidArgument, kWhere, element("psizes", d),
                        "is " + std::to_string(psizes[d]) + "; must be >= 1");
    processes = Impl::checked_mul(processes, psizes[d], kWhere, "psizes");
  }
  if (processes != size)
    Impl::throw_error(ErrorCode::InvalidArgument, kWhere, "size",
                      "is " + std::to_string(size) + " but the process grid has " + std::to_string(processes));
  if (rank < 0 || rank >= size)
    Impl::throw_error(ErrorCode::InvalidArgument, kWhere, "rank",
                      "is " + std::to_string(rank) + "; must be in [0, " + std::to_string(size) + ")");
  // The process grid is row-major whatever the array order (MPI): the last dimension's coordinate varies fastest.
  std::vector<std::int64_t> coords(ndims);
  for (int d = ndims - 1, r = rank; d >= 0; --d) {
    coords[d] = r % psizes[d];
    r = static_cast<int>(r / psizes[d]);
  }
  Datatype level = oldtype;
  std::int64_t pitch = oldtype.extent();  // bytes between consecutive indices of the current dimension
  for (int k = 0; k < ndims; ++k) {
    const int d = order == Order::C ? ndims - 1 - k : k;
    const Blocks b = owned(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d], d);
    std::vector<std::int64_t> displacements;
    for (std::int64_t start : b.starts) displacements.push_back(Impl::checked_mul(start, pitch, kWhere, "gsizes"));
    const std::int64_t row = Impl::checked_mul(pitch, gsizes[d], kWhere, "gsizes");
    level = resized(hindexed(b.lengths, displacements, resized(level, 0, pitch)), 0, row);
    pitch = row;
  }
  return level;
}

}  // namespace KokkosDDT
