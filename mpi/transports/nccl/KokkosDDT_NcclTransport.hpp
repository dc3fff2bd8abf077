// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The NCCL transport (Completion::Stream, CUDA builds that found NCCL). A set's messages run as one group,
// ncclGroupStart, an ncclSend / ncclRecv per message, ncclGroupEnd, on a stream of the transport's own: enqueue() makes
// that stream wait for the work enqueued on the caller's so far (the packs) and enqueues the group; join() makes the
// caller's stream wait for the group (before the unpacks). So work the caller enqueues between the two (a halo step's
// interior sweep) runs beside the messages instead of behind them, and the host never waits. The transport's stream has
// the device's highest priority: the messages' blocks are scheduled before pending blocks of that work.
//
// Communicators: one NCCL communicator per group of processes and GPU, made the first time a plan needs it and kept
// (until MPI_Finalize or mpi::free_cached_communicators()): a plan on another MPI communicator with the same processes
// (MPI_Comm_dup, MPI_Cart_create, a split that keeps them all) reuses it through a map from its ranks to NCCL's, with
// no new ncclCommInitRank. Or the user's own (mpi::nccl_from_raw), never freed here.
//
// What NCCL cannot do, refused with Error rather than emulated: host memory (every buffer must be device memory: the
// halo plan refuses host execution spaces), tags and wildcards (messages between two processes match in posting
// order: a set posts each peer's messages in ascending tag order, so sets built alike on both sides match as tags
// would; MPI_ANY_SOURCE and MPI_ANY_TAG throw), statuses (a receive gets exactly the bytes it asked for; sizes are
// checked before any set is made: the halo plan's handshake does it over MPI), and two processes on one GPU (NCCL
// refuses them: run one process per GPU).
//
// Errors: an ncclResult_t other than ncclSuccess, or a CUDA error, throws Error(Transport) naming the call and its
// text; an error NCCL reports asynchronously (a peer died, a network failure) is found by MessageSet::test (halo plans
// call it from wait) and throws after the library's communicator is aborted (ncclCommAbort), so that nothing waits on
// it forever (a user's communicator is left to the user to abort).

#include <mpi.h>

#include <memory>

#include "KokkosDDT_Transport.hpp"
#include "KokkosDDT_Transports.hpp"

struct ncclComm;

namespace KokkosDDT::Impl {

// The NCCL transport over the processes of `comm` on the library's communicator for them (made, or found in the
// cache). Collective over comm.
std::shared_ptr<Transport> nccl_transport(MPI_Comm comm, const char* where);

// The NCCL transport over the processes of `comm` on the user's communicator `nccl`. Collective over comm: every
// process checks that the NCCL communicator has comm's processes, each once, on its current GPU.
std::shared_ptr<Transport> nccl_transport_on(ncclComm* nccl, MPI_Comm comm, const char* where);

// Whether every process of comm has a GPU of its own (NCCL refuses two on one GPU). Collective over comm.
bool nccl_one_gpu_each(MPI_Comm comm, const char* where);

// Drops the cache (communicators in use stay alive with their transports).
void free_nccl_cache();

// How many NCCL communicators the library has made in this process (ncclCommInitRank calls): tests and benchmarks
// check that plans on communicators of one group of processes share one.
long nccl_communicators_made();

// The registry's line: "nccl", on the library's communicator for the processes or the user's (nccl_from_raw).
TransportEntry nccl_transport_entry();

}  // namespace KokkosDDT::Impl
