// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The deadline of a plan's setup: every wait of make_halo_plan and ExchangePlan::commit for the other processes (the
// control plane's duplicate, agreements, the count exchange of the matching) takes at most the plan's timeout
// (options.timeout, KOKKOSDDT_TIMEOUT_S), then throws Error(Timeout): a process that never makes its part of the
// plan no longer holds the others forever. A SetupDeadline scope sets it for the thread making the plan; outside one
// (collectives, p2p) nothing changes. What a timed-out setup leaves: its pending requests and their buffers (MPI frees
// no request of a collective), never freed. Not bounded yet: the peer transport's handshake, NCCL's communicator
// initialization and the node query (node_leader).

#include <mpi.h>

#include <string>

#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

class SetupDeadline {
 public:
  explicit SetupDeadline(double seconds) : previous_(current()) { current() = seconds; }
  ~SetupDeadline() { current() = previous_; }
  SetupDeadline(const SetupDeadline&) = delete;
  SetupDeadline& operator=(const SetupDeadline&) = delete;
  // The seconds each setup wait may take on this thread (0: none).
  static double seconds() { return current(); }

 private:
  static double& current() {
    thread_local double s = 0;
    return s;
  }
  double previous_;
};

// Completes `n` requests within the setup's deadline (none: MPI_Waitall); past it, throws Timeout naming `what`, and
// the requests stay pending (the caller keeps their buffers).
inline void setup_wait(int n, MPI_Request* requests, const char* where, const char* what) {
  const double seconds = SetupDeadline::seconds();
  if (!(seconds > 0)) {
    mpi_check(MPI_Waitall(n, requests, MPI_STATUSES_IGNORE), where, what);
    return;
  }
  int rc = MPI_SUCCESS;
  const bool met = wait_until(
      [&] {
        int done = 0;
        rc = MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
        return rc != MPI_SUCCESS || done != 0;
      },
      Deadline(seconds));
  mpi_check(rc, where, what);
  if (!met)
    throw_error(ErrorCode::Timeout, where, "timeout",
                std::string("setup: ") + what + " did not complete within " + std::to_string(seconds) +
                    " s (options.timeout or KOKKOSDDT_TIMEOUT_S): a process of the plan has not come to make it");
}

}  // namespace KokkosDDT::Impl
