// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The NCCL transport (Completion::Stream, CUDA builds that found NCCL). A set is enqueued on the execution-space
// instance's stream as one group, ncclGroupStart, an ncclSend / ncclRecv per message, ncclGroupEnd: it runs after the
// work enqueued before it (the packs) and before the work enqueued after it (the unpacks), and the host never waits.
//
// What NCCL cannot do, refused with Error rather than emulated: host memory (every buffer must be device memory: the
// halo plan refuses host execution spaces), tags and wildcards (messages between two processes match in posting
// order: a set posts each peer's messages in ascending tag order, so sets built alike on both sides match as tags
// would; MPI_ANY_SOURCE and MPI_ANY_TAG throw), statuses (a receive gets exactly the bytes it asked for; sizes are
// checked before any set is made: the halo plan's handshake does it over MPI), and two processes on one GPU (NCCL
// refuses them: run one process per GPU).
//
// Errors: an ncclResult_t other than ncclSuccess throws Error(Transport) naming the call and NCCL's text; an error
// NCCL reports asynchronously (a peer died, a network failure) is found by MessageSet::test (halo plans call it from
// wait) and throws after the communicator is aborted (ncclCommAbort), so that nothing waits on it forever.

#include <mpi.h>

#include <memory>

#include "KokkosDDT_Transport.hpp"

namespace KokkosDDT::Impl {

// The NCCL transport over the processes of `comm`, made once per communicator (the unique id is broadcast over comm;
// the communicator lives on the CUDA device current at creation) and cached on it: freed with it. Collective over comm
// the first time.
std::shared_ptr<Transport> nccl_transport(MPI_Comm comm, const char* where);

}  // namespace KokkosDDT::Impl
