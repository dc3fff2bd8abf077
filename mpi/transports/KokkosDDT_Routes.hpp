// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How each message of a plan travels, and why: what a plan reports (routes(), describe()).

#include <cstdint>
#include <string>
#include <vector>

namespace KokkosDDT::mpi {

// One line of a plan's routes: the messages of one direction with one peer on one route.
struct Route {
  bool send = true;  // this process's sends to `peer` (else its receives from `peer`)
  int peer = 0;      // a rank of the plan's communicator
  std::string via;   // "self" (a copy on this process), "peer" (written by the sender's kernel), "peer (landed)"
                     // (packed into the receiver's memory, unpacked there), or the message transport's name
  std::string why;   // why a message to another process did not take the peer route ("" when it did)
  int messages = 0;
  std::int64_t bytes = 0;  // per step
};

// The routes as text, a line each: "send to 3: peer, 2 messages, 16384 bytes" (plans' describe()).
inline std::string describe(const std::vector<Route>& routes) {
  std::string text;
  for (const Route& r : routes) {
    text += std::string(r.send ? "send to " : "receive from ") + std::to_string(r.peer) + ": " + r.via;
    if (!r.why.empty()) text += " (" + r.why + ")";
    text += ", " + std::to_string(r.messages) + (r.messages == 1 ? " message, " : " messages, ") +
            std::to_string(r.bytes) + " bytes\n";
  }
  return text;
}

}  // namespace KokkosDDT::mpi
