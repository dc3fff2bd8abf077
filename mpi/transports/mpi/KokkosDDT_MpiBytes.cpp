// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_MpiBytes.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_Settings.hpp"

namespace KokkosDDT::Impl {

std::int64_t mpi_chunk_bytes() { return settings().mpi_chunk_bytes; }

ByteType::ByteType(std::int64_t bytes) {
  const std::int64_t chunk = mpi_chunk_bytes();
  if (bytes <= chunk) {
    count_ = static_cast<int>(bytes);
    return;
  }
  const char* where = "KokkosDDT::mpi (a message over the chunk size)";
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  // Blocks of `block` bytes, as many as fit, then the remainder: q x block + r = bytes, with q and block ints.
  const std::int64_t block = std::max(chunk, (bytes + int_max - 1) / int_max);
  const std::int64_t q = bytes / block, r = bytes % block;
  MPI_Datatype one = MPI_DATATYPE_NULL, blocks = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_contiguous(static_cast<int>(block), MPI_BYTE, &one), where, "MPI_Type_contiguous");
  mpi_check(MPI_Type_contiguous(static_cast<int>(q), one, &blocks), where, "MPI_Type_contiguous");
  MPI_Type_free(&one);
  if (r == 0) {
    type_ = blocks;
  } else {
    int lengths[2] = {1, static_cast<int>(r)};
    MPI_Aint displacements[2] = {0, static_cast<MPI_Aint>(q * block)};
    MPI_Datatype types[2] = {blocks, MPI_BYTE};
    mpi_check(MPI_Type_create_struct(2, lengths, displacements, types, &type_), where, "MPI_Type_create_struct");
    MPI_Type_free(&blocks);
  }
  mpi_check(MPI_Type_commit(&type_), where, "MPI_Type_commit");
  count_ = 1;
}

ByteType::~ByteType() {
  if (type_ == MPI_BYTE) return;
  if (!mpi_finalized()) MPI_Type_free(&type_);
}

ByteType::ByteType(ByteType&& other) noexcept
    : type_(std::exchange(other.type_, MPI_BYTE)), count_(std::exchange(other.count_, 0)) {}

ByteType& ByteType::operator=(ByteType&& other) noexcept {
  std::swap(type_, other.type_);
  std::swap(count_, other.count_);
  return *this;
}

void post_bytes(ByteCall call, void* p, const ByteType& layout, int peer, int tag, MPI_Comm comm, MPI_Request* request,
                const char* where) {
  const int n = layout.count();
  const MPI_Datatype t = layout.type();
  switch (call) {
    case ByteCall::Isend:
      return mpi_check(MPI_Isend(p, n, t, peer, tag, comm, request), where, "MPI_Isend");
    case ByteCall::Irecv:
      return mpi_check(MPI_Irecv(p, n, t, peer, tag, comm, request), where, "MPI_Irecv");
    case ByteCall::SendInit:
      return mpi_check(MPI_Send_init(p, n, t, peer, tag, comm, request), where, "MPI_Send_init");
    case ByteCall::RecvInit:
      return mpi_check(MPI_Recv_init(p, n, t, peer, tag, comm, request), where, "MPI_Recv_init");
  }
}

std::int64_t received_bytes(const MPI_Status& status) {
  int count = 0;  // (MPI_Get_count first: for bytes it is a division, where MPI_Get_elements_x walks the type)
  if (MPI_Get_count(&status, MPI_BYTE, &count) == MPI_SUCCESS && count != MPI_UNDEFINED) return count;
  MPI_Count n = 0;
  MPI_Get_elements_x(&status, MPI_BYTE, &n);
  return static_cast<std::int64_t>(n);
}

}  // namespace KokkosDDT::Impl
