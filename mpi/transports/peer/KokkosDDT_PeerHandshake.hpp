// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The peer handshake's messages, plain data on the plan's control plane (64-bit words, each message with the tag of
// the plan message it is about: MPI's order per source and tag pairs them as the plan's messages pair). For each
// receive of another process of the node:
//
//   1. the receiver sends its sender an Offer: who it is, where the sender may write (the receive's cells in an
//      exported allocation, or a landing buffer of its own), the counter the sender will write ("written"), and,
//      for typed cells, the receive's committed type after the Offer's words;
//   2. the sender decides (KokkosDDT_PeerRefusal.hpp's rule), maps the cells and the receiver's counters, and answers
//   with
//      an Answer: the decision, and the counter the receiver will write ("free");
//   3. the receiver maps the sender's counters. Every process then agrees that every process succeeded (one failure
//      fails the plan everywhere) and whether any message is left for the message transport.
//
// Both ends of a direct message also open each other's departure board (KokkosDDT_PeerBoard.hpp): the Offer and the
// Answer name it and the word there that the other end posts in. A sender that cannot open its receiver's board
// refuses the peer route (the processes share no /dev/shm).
//
// docs/DESIGN.md ("the peer step") numbers what each counter means during a step and at destroy.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace KokkosDDT::Impl {

struct Offer {
  std::int64_t node = 0;  // alike on the processes of one node (node_leader)
  std::int64_t pid = 0;
  std::int64_t pid_namespace = 0;  // (KokkosDDT_PeerLiveness.hpp: whether `pid` is checkable on the other side)
  std::int64_t gpu[2] = {0, 0};    // the receiver's GPU's UUID
  std::int64_t counters = 0;       // 1: its step counters exist and are exported
  std::int64_t exported = 0;       // 1: `cells` is an exported allocation holding the receive
  std::int64_t landed = 0;         // 1: the sender packs `count` bytes at `origin` in the receiver's landing buffer
  cudaIpcMemHandle_t cells{};      // the allocation (the mapping's key: pid and cells_base)
  std::int64_t cells_base = 0;
  std::int64_t origin = 0;             // the receive's origin (or landing slice) minus the allocation's base (wrapping)
  std::int64_t count = 0;              // instances of the type; landed: bytes
  cudaIpcMemHandle_t counter_block{};  // the receiver's counters' allocation
  std::int64_t counter_base = 0;
  std::int64_t written = 0;  // byte offset there of the counter the sender writes when its step's writes are done
  std::int64_t board = 0;    // the receiver's departure board (its token: KokkosDDT_PeerBoard.hpp)
  std::int64_t slot = 0;     // the sender's word there
};

struct Answer {
  std::int64_t refusal = 0;  // PeerRefusal (None: the message goes direct)
  std::int64_t node = 0;
  std::int64_t pid = 0;
  std::int64_t pid_namespace = 0;
  cudaIpcMemHandle_t counter_block{};  // the sender's counters' allocation
  std::int64_t counter_base = 0;
  std::int64_t free = 0;   // byte offset there of the counter the receiver writes when its cells may be written
  std::int64_t board = 0;  // the sender's departure board (its token)
  std::int64_t slot = 0;   // the receiver's word there
};

// A message as words and back (a message shorter than the struct reads as zeros: no counters, no route).
template <class T>
std::vector<std::int64_t> to_words(const T& message) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % sizeof(std::int64_t) == 0, "whole 64-bit words");
  std::vector<std::int64_t> words(sizeof(T) / sizeof(std::int64_t));
  std::memcpy(words.data(), &message, sizeof(T));
  return words;
}
template <class T>
T from_words(const std::vector<std::int64_t>& words) {
  T message;
  std::memcpy(static_cast<void*>(&message), words.data(), std::min(sizeof(T), words.size() * sizeof(std::int64_t)));
  return message;
}
template <class T>
constexpr int words_of() {
  return static_cast<int>(sizeof(T) / sizeof(std::int64_t));
}

}  // namespace KokkosDDT::Impl
