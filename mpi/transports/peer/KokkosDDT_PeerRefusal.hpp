// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The rule by which a message takes the peer route (the sender's kernel writes the receiver's cells) or stays a message
// of the plan's message transport, and why not (the reason a plan's routes() report).
//
// Both ends of a pair apply the rule to the same facts: the receiver offers its own (node, process, whether its cells
// and its step counters can be mapped), the sender adds whether its GPU reaches the receiver's and decides, and its
// answer tells the receiver. So the two processes of a pair never disagree on a route.

#include <cstdint>

namespace KokkosDDT::Impl {

// Why a message did not take the peer route (None: it did). The values travel in the peer handshake.
enum class PeerRefusal : std::int64_t {
  None = 0,
  SameProcess,  // a process's message to itself through the transport (tests)
  OtherNode,
  Unreachable,  // the sender's GPU has no peer access to the receiver's
  NoCounters,   // a GPU without 64-bit stream memory operations, or the step counters could not be made
  Cells,        // the receive's cells are not in one device allocation CUDA IPC can export (host, managed, several)
  Failed,       // mapping failed (the plan then throws everywhere)
  NoBoard,      // the receiver's departure board cannot be opened: the processes share no /dev/shm
  Mapped,       // the receiver's memory is mapped in the sender's process already, by a mapping not the transport's
};

// What one end of a pair knows of itself.
struct PeerFacts {
  std::int64_t node = 0;  // alike on the processes of one node (node_leader)
  std::int64_t pid = 0;
  bool counters = false;  // its step counters exist and are exported
  bool cells = false;     // (the receiver) its receive cells are exported
};

// The rule: the sender decides from the receiver's facts, its own, and whether its GPU reaches the receiver's.
inline PeerRefusal peer_refusal(const PeerFacts& sender, const PeerFacts& receiver, bool reaches) {
  if (sender.node == receiver.node && sender.pid == receiver.pid) return PeerRefusal::SameProcess;
  if (sender.node != receiver.node) return PeerRefusal::OtherNode;
  if (!reaches) return PeerRefusal::Unreachable;
  if (!sender.counters || !receiver.counters) return PeerRefusal::NoCounters;
  if (!receiver.cells) return PeerRefusal::Cells;
  return PeerRefusal::None;
}

inline const char* why(PeerRefusal r) {
  switch (r) {
    case PeerRefusal::None:
      return "";
    case PeerRefusal::SameProcess:
      return "this process itself";
    case PeerRefusal::OtherNode:
      return "another node";
    case PeerRefusal::Unreachable:
      return "the GPUs have no peer access";
    case PeerRefusal::NoCounters:
      return "no stream memory operations for the step's counters";
    case PeerRefusal::Cells:
      return "the receive's cells are not in one device allocation";
    case PeerRefusal::Failed:
      return "mapping failed";
    case PeerRefusal::NoBoard:
      return "the processes share no host memory (/dev/shm)";
    case PeerRefusal::Mapped:
      return "the receiver's memory is mapped here already by another library (a CUDA-aware MPI's IPC cache)";
  }
  return "unknown";
}

}  // namespace KokkosDDT::Impl
