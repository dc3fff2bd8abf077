// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The MPI transport (Completion::Host): every message is one MPI message of any size (KokkosDDT_MpiBytes.hpp),
// posted by the host (MPI_Isend/MPI_Irecv, or MPI_Send_init/MPI_Recv_init + MPI_Start for a persistent set) and
// completed by MPI_Test on each message alone. MPICH raises MPI_Testall's errors on MPI_COMM_WORLD's handler (fatal by
// default), MPI_Test's on the message's communicator: so errors reach the communicator whose handler returns them.
//
// Communicators, one rule: the library's own traffic (a halo plan, the collectives of a communicator) runs on a
// duplicate that the transport owns (duplicate(): no user receive can match it, and its handler returns errors);
// typed p2p runs on the user's communicator itself (the MpiTransport(comm) constructor), because the user's own MPI
// calls must match its messages.

#include <mpi.h>

#include <memory>
#include <vector>

#include "KokkosDDT_Transport.hpp"
#include "KokkosDDT_Transports.hpp"

namespace KokkosDDT::Impl {

class MpiTransport final : public Transport {
 public:
  // Messages on `comm` itself (not owned).
  explicit MpiTransport(MPI_Comm comm) : comm_(comm) {}
  // On a duplicate of `comm`, owned, with MPI_ERRORS_RETURN. Collective over comm.
  static std::shared_ptr<MpiTransport> duplicate(MPI_Comm comm, const char* where);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  MPI_Comm comm() const { return comm_; }
  // The duplicate is not freed with this (MPI_Finalize releases it): messages of a step some process abandoned may
  // still arrive on it, and a later duplicate could reuse its context and receive them.
  void keep_until_finalize() { owned_ = false; }

  const char* name() const override { return "MPI"; }
  // Host completion, host memory, tags (its registry entry's); device memory where the MPI is GPU-aware, which a made
  // one knows (KokkosDDT_MpiGpuAware.hpp).
  static TransportCapabilities known_capabilities();
  TransportCapabilities capabilities() const override;
  int rank() const override;
  int size() const override;
  std::unique_ptr<MessageSet> make_set(std::vector<ByteMessage> sends, std::vector<ByteMessage> receives,
                                       bool persistent, const char* where) override;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool owned_ = false;
  mutable int rank_ = -1, size_ = -1;  // (asked once: collectives ask on every call)
};

// The registry's line: "mpi", on the plan's control plane (its MPI duplicate) itself.
TransportEntry mpi_transport_entry();

}  // namespace KokkosDDT::Impl
