// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The deadline of a plan's setup: every wait of make_halo_plan and ExchangePlan::commit for the other processes (the
// control plane's duplicate, agreements, the count exchange of the matching) takes at most the plan's timeout
// (options.timeout, KOKKOSDDT_TIMEOUT_S), then throws Error(Timeout): a process that never makes its part of the
// plan no longer holds the others forever. A SetupDeadline scope sets it for the thread making the plan; outside one
// (collectives, p2p) nothing changes. The peer transport's handshake waits so too (setup_probe, setup_wait). What a
// timed-out setup leaves: its pending requests and their buffers (MPI frees no request of a collective), never freed.
// Not bounded: NCCL's communicator initialization and the node query (node_leader), blocking calls of their own.

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

// The setup's timeout: Error(Timeout) naming the wait `what` that did not complete within `seconds`.
[[noreturn]] inline void setup_timeout(double seconds, const char* where, const char* what) {
  throw_error(ErrorCode::Timeout, where, "timeout",
              std::string("setup: ") + what + " did not complete within " + std::to_string(seconds) +
                  " s (options.timeout or KOKKOSDDT_TIMEOUT_S): a process of the plan has not come to make it");
}

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
  if (!met) setup_timeout(seconds, where, what);
}

// MPI_Probe within the setup's deadline (none: MPI_Probe itself); past it, throws Timeout naming `what`.
inline void setup_probe(int source, int tag, MPI_Comm comm, MPI_Status* status, const char* where, const char* what) {
  const double seconds = SetupDeadline::seconds();
  if (!(seconds > 0)) {
    mpi_check(MPI_Probe(source, tag, comm, status), where, what);
    return;
  }
  int rc = MPI_SUCCESS;
  const bool met = wait_until(
      [&] {
        int found = 0;
        rc = MPI_Iprobe(source, tag, comm, &found, status);
        return rc != MPI_SUCCESS || found != 0;
      },
      Deadline(seconds));
  mpi_check(rc, where, what);
  if (!met) setup_timeout(seconds, where, what);
}

}  // namespace KokkosDDT::Impl
