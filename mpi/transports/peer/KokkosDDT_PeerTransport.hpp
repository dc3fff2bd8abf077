// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The peer transport (CUDA builds; capability `direct`): between processes of one node whose GPUs reach each other
// (peer access over NVLink or PCIe, or one GPU shared), the sender's fused kernel writes the receiver's cells itself,
// through a CUDA-IPC mapping of the receiver's allocation and the receiver's committed type; no staging buffer, no
// message, no unpack. Each step is ordered by two rising counters per pair in GPU memory, written and waited for by
// stream memory operations (DirectLinks in KokkosDDT_Transport.hpp): no host call waits.
//
// Messages that cannot go direct (another node, GPUs without peer access, cells outside one cudaMalloc allocation,
// host memory, a process's messages to itself) are MPI messages on the transport's own duplicate, in the same plan.
//
// What the user keeps: every receive buffer's allocation, as long as the plan lives (peers hold mappings of it; a
// reallocated field under a plan gets writes meant for the old one). Making and destroying a plan are collective.

#include <mpi.h>

#include <memory>
#include <vector>

#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_Transport.hpp"
#include "KokkosDDT_Transports.hpp"

namespace KokkosDDT::Impl {

class PeerTransport final : public Transport {
 public:
  PeerTransport(MPI_Comm comm, const char* where);  // collective over comm (a duplicate; the node's processes)

  const char* name() const override { return "peer"; }
  Completion completion() const override { return Completion::Host; }
  bool reaches_host_memory() const override { return true; }
  bool reaches_device_memory() const override { return mpi_->reaches_device_memory(); }
  bool matches_tags() const override { return true; }
  int rank() const override { return mpi_->rank(); }
  int size() const override { return mpi_->size(); }
  std::unique_ptr<MessageSet> make_set(std::vector<WireMessage> sends, std::vector<WireMessage> receives,
                                       bool persistent, const char* where) override {
    return mpi_->make_set(std::move(sends), std::move(receives), persistent, where);
  }
  std::unique_ptr<DirectLinks> connect(const std::vector<TypedEnd>& sends, const std::vector<TypedEnd>& receives,
                                       std::vector<DirectRoute>& routes, std::vector<DirectReceive>& direct_receives,
                                       const char* where) override;

 private:
  std::shared_ptr<MpiTransport> mpi_;  // the messages that do not go direct, and the handshakes
  std::int64_t node_ = 0;              // alike on the processes of one node (the first one's rank)
};

// The registry's line: "peer".
TransportEntry peer_transport_entry();

}  // namespace KokkosDDT::Impl
