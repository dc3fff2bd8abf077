// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The peer transport (CUDA builds; capability `direct`): between processes of one node whose GPUs reach each other
// (peer access over NVLink or PCIe, or one GPU shared), the sender's fused kernel writes the receiver's cells itself,
// through a CUDA-IPC mapping of the receiver's allocation and the receiver's committed type; no staging buffer, no
// message, no unpack. Each step is ordered by two rising counters per pair in GPU memory, written and waited for by
// stream memory operations (the Step of KokkosDDT_Transport.hpp): no host call waits.
//
// Messages that cannot go direct (another node, GPUs without peer access, cells outside one cudaMalloc allocation,
// host memory, a process's messages to itself: KokkosDDT_PeerRefusal.hpp's rule) are messages of another transport in
// the same plan, chosen at route() once every process knows whether it has any: "peer" keeps them on MPI, on the plan's
// control plane; "auto" gives them to NCCL where it can (best_message_transport). Every handshake runs on the
// control plane.
//
// What the user keeps: every receive buffer's allocation, as long as the plan lives (peers hold mappings of it; a
// reallocated field under a plan gets writes meant for the old one). A later plan maps a reallocated field anew; what
// a process keeps across plans (mappings, counters, streams) is KokkosDDT_PeerMemory.hpp's. Making and destroying a
// plan are collective.

#include <mpi.h>

#include <memory>
#include <vector>

#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_Transport.hpp"
#include "KokkosDDT_Transports.hpp"

namespace KokkosDDT::Impl {

class PeerTransport final : public Transport {
 public:
  // Collective over control (the plan's control plane). Until route(), the messages go over control.
  PeerTransport(std::shared_ptr<MpiTransport> control, MessageTransport messages, const char* where);

  const char* name() const override { return "peer"; }
  // Its message transport's, and direct writes within one allocation.
  TransportCapabilities capabilities() const override { return with_direct(messages_->capabilities()); }
  static TransportCapabilities with_direct(TransportCapabilities c) {
    c.direct = true;
    c.one_allocation = true;
    return c;
  }
  int rank() const override { return control_->rank(); }
  int size() const override { return control_->size(); }
  std::unique_ptr<MessageSet> make_set(std::vector<ByteMessage> sends, std::vector<ByteMessage> receives,
                                       bool persistent, const char* where) override {
    return messages_->make_set(std::move(sends), std::move(receives), persistent, where);
  }
  // The handshake with each message's peer decides which go direct (KokkosDDT_PeerRefusal.hpp's rule: Typed, or Landed
  // for cells in short runs); the others go to the message transport, chosen now (every process knows whether any
  // has some), and are its routes.
  // `replayable`: the links' counters are reset by their readers (KokkosDDT_PeerLinks.hpp).
  Deliveries route(const std::vector<CommittedMessage>& sends, const std::vector<CommittedMessage>& receives,
                   const StagingSource& staging, bool replayable, const char* where) override;

 private:
  std::shared_ptr<MpiTransport> control_;  // the handshakes
  MessageTransport choose_;                // picks messages_ at route()
  std::shared_ptr<Transport> messages_;    // the messages that do not go direct
  std::int64_t node_ = 0;                  // alike on the processes of one node (node_leader)
};

// The registry's line: "peer" (the messages that do not go direct: MPI on the control plane); it routes, so the
// registry's "auto" is made of it (its other messages on the registry's best message transport).
TransportEntry peer_transport_entry();

}  // namespace KokkosDDT::Impl
