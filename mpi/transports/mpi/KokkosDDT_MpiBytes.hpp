// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Byte messages of any size as ONE MPI message. MPI counts are ints: a message of more than mpi_chunk_bytes() bytes
// (1 GiB) goes as count 1 of a contiguous byte datatype made of chunk-sized blocks (BigMPI's technique), never as
// several messages. So a receive matches a whole message or nothing: MPI_ANY_SOURCE cannot mix two senders' pieces, a
// longer message is MPI's own MPI_ERR_TRUNCATE, a shorter one shows in the status, and nothing is ever left behind in
// MPI's queues. The MPI transport (KokkosDDT_MpiTransport.hpp) posts every message through here.

#include <mpi.h>

#include <cstdint>

namespace KokkosDDT::Impl {

// The largest count KokkosDDT passes to one MPI call: 1 GiB. KOKKOSDDT_MPI_CHUNK_BYTES lowers it (tests: every message
// above it then takes the derived-type path).
std::int64_t mpi_chunk_bytes();

// What one message of `bytes` bytes is made of: `count` x `type`. For bytes <= mpi_chunk_bytes() that is bytes x
// MPI_BYTE; above, a committed derived type that this object owns and frees (MPI lets a datatype be freed while a
// message that uses it is pending; persistent requests keep the object alive with them anyway).
class ByteType {
 public:
  explicit ByteType(std::int64_t bytes = 0);
  ~ByteType();
  ByteType(ByteType&& other) noexcept;
  ByteType& operator=(ByteType&& other) noexcept;
  ByteType(const ByteType&) = delete;
  ByteType& operator=(const ByteType&) = delete;

  MPI_Datatype type() const { return type_; }
  int count() const { return count_; }

 private:
  MPI_Datatype type_ = MPI_BYTE;
  int count_ = 0;
};

enum class ByteCall { Isend, Irecv, SendInit, RecvInit };

// Posts (or, for SendInit/RecvInit, initializes) one message of `bytes` bytes at `p` with `layout` = ByteType(bytes).
// Throws Error(MPI) naming `where` when MPI returns an error.
void post_bytes(ByteCall call, void* p, const ByteType& layout, int peer, int tag, MPI_Comm comm, MPI_Request* request,
                const char* where);

// Bytes a completed receive got (MPI_Get_count, or MPI_Get_elements_x beyond 2^31 where the count is MPI_UNDEFINED).
std::int64_t received_bytes(const MPI_Status& status);

}  // namespace KokkosDDT::Impl
