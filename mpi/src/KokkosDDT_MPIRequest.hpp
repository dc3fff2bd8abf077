// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A typed send or receive in progress (isend/irecv), or a persistent one (send_init/recv_init + start). Progress
// happens in test and wait: a send whose pack kernel has finished (its completion flag, written by the kernel) is
// posted to MPI, in start order per destination, by the test of any request; a receive that has arrived is unpacked.
// Completing a nonpersistent request makes it null, as in MPI; a persistent one becomes inactive until the next
// start().
//
// Destroying an active request: a receive is cancelled; a send is posted if it was still waiting (for its pack, or
// behind an earlier send), then handed to MPI (MPI_Request_free) with its staging buffer kept until the end of the
// program, so nothing is freed under a message in flight.

#include <cstdint>
#include <memory>
#include <vector>

#include <mpi.h>

#include "KokkosDDT_Transport.hpp"

namespace KokkosDDT::Impl {

// One operation behind a request: a typed message (P2P.hpp, on any transport) or a collective.
class Operation {
 public:
  virtual ~Operation() = default;
  virtual void start() = 0;            // begins the operation (pack or post)
  virtual bool progress() = 0;         // advances it; true once complete
  virtual Arrival status() const = 0;  // a completed receive's source, tag and bytes
};

// Advances `op` until it completes, posting queued sends meanwhile (as every request's test does): for an operation a
// blocking call runs in place, without a Request.
void wait_operation(Operation& op);

}  // namespace KokkosDDT::Impl

namespace KokkosDDT::mpi {

class Request {
 public:
  Request() = default;  // the null request
  Request(std::shared_ptr<Impl::Operation> op, bool persistent) : op_(std::move(op)), persistent_(persistent) {}
  Request(Request&&) = default;  // move-only, as a request has one owner
  Request& operator=(Request&&) = default;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  bool is_null() const { return op_ == nullptr; }
  bool is_persistent() const { return persistent_; }
  bool is_active() const { return op_ && active_; }

  void start();  // a persistent request: begins one round (throws if already active or not persistent)
  bool test();   // advances the operation; true when complete (also for null and inactive requests)
  void wait();   // test until complete
  // The MPI status of the last completed receive (source, tag; MPI_Get_count gives the packed bytes).
  MPI_Status status() const;

 private:
  friend Request make_active(std::shared_ptr<Impl::Operation> op);
  std::shared_ptr<Impl::Operation> op_;
  bool persistent_ = false;
  bool active_ = false;
  Impl::Arrival last_{};
};

// Every request complete? Advances all of them.
bool test_all(std::vector<Request>& requests);
void wait_all(std::vector<Request>& requests);
// Waits until one active request completes and returns its index; MPI_UNDEFINED when none is active.
int wait_any(std::vector<Request>& requests);
// Starts every persistent request.
void start_all(std::vector<Request>& requests);

// A nonpersistent request for an operation that has been started.
Request make_active(std::shared_ptr<Impl::Operation> op);

}  // namespace KokkosDDT::mpi
