// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Before a persistent exchange is built, every send is matched with its receive on the peer, once: a plan whose
// messages do not pair up would hang or truncate on every step, and NCCL (which has no status) would not even say so.
// Per ordered pair of processes, the sends of one and the receives of the other are compared in (tag, posting order):
// the order in which MPI matches messages of one source and tag, and in which tagless transports post them. Number,
// tag, size and type signature must agree. A process's messages to itself pair the same way, without messages.
//
// The exchange of descriptions: an MPI_Alltoall of message counts (so that nobody waits for descriptions never sent),
// then one message of 4 integers per described message, both over the plan's own MPI duplicate.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

#include "KokkosDDT_ExchangeEngine.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_SetupDeadline.hpp"
#include "KokkosDDT_Signature.hpp"

namespace KokkosDDT::Impl {

// What one message looks like to its peer: tag, bytes, type signature (hash, length). Where several exchanges are
// matched at once, the tag of exchange k's message is its tag + k * kExchangeTags: each pairs only among its own.
using MessageShape = std::array<std::int64_t, 4>;
constexpr std::int64_t kExchangeTags = std::int64_t(1) << 32;  // (above every MPI tag)

inline MessageShape shape_of(const PlannedMessage& m, std::int64_t exchange) {
  // (the signature of `count` instances: type and count may differ between the sides, as with MPI, when the sequences
  // of primitives agree)
  const TypeSignature sig = repeat(m.type.signature(), m.count);
  return {m.tag + exchange * kExchangeTags, m.bytes(), static_cast<std::int64_t>(sig.hash), sig.length};
}

// A message described for the match: its peer and shape; `local` where it is a message to itself that is none.
struct DescribedMessage {
  int peer = 0;
  bool local = false;
  MessageShape shape{};
};

// The sends (or receives) of several exchanges, in order, described; messages to `me` marked local where `local`.
inline std::vector<DescribedMessage> describe(const std::vector<const std::vector<PlannedMessage>*>& exchanges, int me,
                                              bool local) {
  std::vector<DescribedMessage> out;
  for (std::size_t k = 0; k < exchanges.size(); ++k)
    for (const PlannedMessage& m : *exchanges[k])
      out.push_back({m.peer, local && m.peer == me, shape_of(m, static_cast<std::int64_t>(k))});
  return out;
}

// The shapes of the messages to or from `peer` (`local` ones or the others), in (tag, posting order).
inline std::vector<MessageShape> shapes_with(const std::vector<DescribedMessage>& messages, int peer, bool local) {
  std::vector<MessageShape> shapes;
  for (const DescribedMessage& m : messages)
    if (m.peer == peer && m.local == local) shapes.push_back(m.shape);
  std::stable_sort(shapes.begin(), shapes.end(),
                   [](const MessageShape& a, const MessageShape& b) { return a[0] < b[0]; });
  return shapes;
}

inline std::string tag_text(std::int64_t tag) {
  return std::to_string(tag % kExchangeTags) +
         (tag >= kExchangeTags ? " of exchange " + std::to_string(tag / kExchangeTags) : std::string());
}

// Compares what `peer` sends this process with what this process receives from it; "" when they agree. `hint` says
// what usually causes a mismatch, for the error.
inline std::string compare_shapes(int peer, const std::vector<MessageShape>& sent,
                                  const std::vector<MessageShape>& received, const std::string& hint) {
  const std::string from = peer < 0 ? "this rank to itself" : "rank " + std::to_string(peer);
  if (sent.size() != received.size())
    return from + " sends " + std::to_string(sent.size()) + " messages where this rank receives " +
           std::to_string(received.size()) + " from it" + hint;
  for (std::size_t k = 0; k < sent.size(); ++k) {
    const MessageShape &s = sent[k], &r = received[k];
    const std::string which = "message " + std::to_string(k) + " (tag " + tag_text(r[0]) + ") from " + from;
    if (s[0] != r[0])
      return from + " sends tag " + tag_text(s[0]) + " where this rank's receive " + std::to_string(k) +
             " from it has tag " + tag_text(r[0]) + hint;
    if (s[1] != r[1])
      return which + " carries " + std::to_string(s[1]) + " bytes where the receive holds " + std::to_string(r[1]) +
             hint;
    if (s[2] != r[2] || s[3] != r[3]) return which + " has another type signature than its receive" + hint;
  }
  return "";
}

// Matches this process's sends and receives with every peer's (collective over control's communicator; `me` is this
// process's rank in it), of one exchange or of several between the same processes at once (`sends[k]` and
// `recvs[k]`: exchange k's; a halo plan's gather and scatter), each exchange's messages paired only among themselves:
// one exchange of descriptions for all. Returns this process's first error, "" when all agree: the caller settles the
// verdict (Agreement), so that every process throws or none does.
inline std::string match_messages(MpiTransport& control, const std::vector<const std::vector<PlannedMessage>*>& sends,
                                  const std::vector<const std::vector<PlannedMessage>*>& recvs, int me,
                                  const std::string& hint, const char* where) {
  const int size = control.size();
  // This process's messages to itself that are no messages (the engine's pairing): compared here, not sent.
  const bool local = !self_messages_through_transport();
  const std::vector<DescribedMessage> out_d = describe(sends, me, local), in_d = describe(recvs, me, local);

  // Counts, then descriptions, of the messages of the transport (peers that are MPI_PROC_NULL send nothing).
  std::vector<int> count(size, 0), incoming(size, 0);
  for (const DescribedMessage& m : out_d)
    if (!m.local && m.peer != MPI_PROC_NULL) ++count[m.peer];
  if (SetupDeadline::seconds() > 0) {  // (a plan's setup: within its deadline; past it the buffers stay with MPI)
    auto *counts = new std::vector<int>(count), *received = new std::vector<int>(size, 0);
    MPI_Request request = MPI_REQUEST_NULL;
    mpi_check(MPI_Ialltoall(counts->data(), 1, MPI_INT, received->data(), 1, MPI_INT, control.comm(), &request), where,
              "MPI_Ialltoall");
    setup_wait(1, &request, where, "MPI_Ialltoall (the count of each process's messages)");
    incoming = *received;
    delete counts;
    delete received;
  } else {
    mpi_check(MPI_Alltoall(count.data(), 1, MPI_INT, incoming.data(), 1, MPI_INT, control.comm()), where,
              "MPI_Alltoall");
  }
  std::vector<std::vector<MessageShape>> mine(size), theirs(size);
  std::vector<ByteMessage> out, in;
  constexpr int kTag = 0x4b45;  // (the plan's own duplicate: no other traffic)
  for (int p = 0; p < size; ++p) {
    if (count[p] > 0) {
      mine[p] = shapes_with(out_d, p, false);
      out.push_back({reinterpret_cast<char*>(mine[p].data()), std::int64_t(sizeof(MessageShape)) * count[p], p, kTag});
    }
    if (incoming[p] > 0) {
      theirs[p].resize(incoming[p]);
      in.push_back(
          {reinterpret_cast<char*>(theirs[p].data()), std::int64_t(sizeof(MessageShape)) * incoming[p], p, kTag});
    }
  }
  {
    auto descriptions = control.make_set(out, in, false, where);
    descriptions->post_receives();
    descriptions->post_sends();
    descriptions->wait();
  }
  for (int p = 0; p < size; ++p) {
    const std::string error = compare_shapes(p, theirs[p], shapes_with(in_d, p, false), hint);
    if (!error.empty()) return error;
  }
  // Messages to itself without the transport: its own sends to itself against its own receives from itself.
  return compare_shapes(-1, shapes_with(out_d, me, true), shapes_with(in_d, me, true), hint);
}

// One exchange's.
inline std::string match_messages(MpiTransport& control, const std::vector<PlannedMessage>& sends,
                                  const std::vector<PlannedMessage>& recvs, int me, const std::string& hint,
                                  const char* where) {
  return match_messages(control, std::vector<const std::vector<PlannedMessage>*>{&sends},
                        std::vector<const std::vector<PlannedMessage>*>{&recvs}, me, hint, where);
}

}  // namespace KokkosDDT::Impl
