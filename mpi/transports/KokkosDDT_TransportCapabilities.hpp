// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a transport can do, known before one is made (mpi::capabilities): plans and collectives ask this, never which
// transport it is.

namespace KokkosDDT::mpi {

// Where a transport's messages complete: on the host (it posts, then tests), or in stream order (enqueued after the
// work on an execution-space instance's stream; later work there runs after them).
enum class Completion { Host, Stream };

struct TransportCapabilities {
  Completion completion = Completion::Host;
  bool host_memory = true;      // message buffers may be in host memory
  bool device_memory = false;   // ... in device memory (MPI: when the MPI is GPU-aware, known once made)
  bool tags = true;             // receives pick a tag (false: each peer's messages match in the order posted)
  bool direct = false;          // a sender's kernel may write a receiver's cells (the peer route)
  bool one_allocation = false;  // direct: only a message whose cells lie in one allocation goes direct (halo plans
                                // then send each field of a neighbour as a message of its own)
};

}  // namespace KokkosDDT::mpi
