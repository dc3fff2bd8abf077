// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// MPI's non-overtaking rule (MPI-4.0 section 3.5) for sends whose bytes are not ready when they start. A staged send
// reaches MPI only once its pack has run, a contiguous one at once: without care, a later send overtakes an earlier
// one to the same destination, and a receive matches the wrong message (or the same size, silently the wrong data).
// So the sends of one process to one (communicator, destination) reach MPI in the order they were started, whatever
// their tags (a receive with MPI_ANY_TAG may match either): a send that is ready waits behind earlier ones that are
// not. Every test or wait of any KokkosDDT request posts the queued sends that have become ready, so that waiting on
// a receive first (a common MPI pattern) never starves a send whose pack has finished.

#include <mpi.h>

namespace KokkosDDT::Impl {

// A send that may have to wait for its bytes. Both calls may run from another request's test: they report errors by
// recording them for their own request, never by throwing.
class OrderedSend {
 public:
  // Whether the bytes are in place. `may_launch`: the send may start pending work (a fused launch) to get there; at
  // start it must not, so that the packs of one step still share a launch.
  virtual bool ready(bool may_launch) noexcept = 0;
  virtual void post() noexcept = 0;  // hands the message to MPI

 protected:
  ~OrderedSend() = default;
};

// Starts `s` towards (comm, dest): posted at once when it is ready and nothing is ahead of it, queued otherwise.
void start_send(MPI_Comm comm, int dest, OrderedSend& s);

// Posts, on every channel, the queued sends that are ready and have nothing ahead of them. Cheap when none is queued.
void progress_sends();

// Whether any send is queued: a wait that blocks in MPI (and so posts none of them) may only begin when none is, since
// a peer may need one of them before it sends what the wait is for.
bool sends_queued();

// For a send that is destroyed while queued: waits until it and every send ahead of it are ready and posts them.
void flush_send(MPI_Comm comm, int dest, OrderedSend& s);

}  // namespace KokkosDDT::Impl
