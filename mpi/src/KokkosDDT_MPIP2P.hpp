// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Typed nonblocking point-to-point messages: (buffer or View, count, Datatype) in any memory space the execution space
// can reach.
//
//   auto s = KokkosDDT::mpi::isend(space, field.data(), 1, face, right, tag, comm);
//   auto r = KokkosDDT::mpi::irecv(space, field.data(), 1, ghost, left, tag, comm);
//   KokkosDDT::mpi::wait_all(requests);
//
// Data that is contiguous once the type is normalized goes to MPI where it is, when the MPI can reach that memory.
// Anything else is staged (KokkosDDT_MPIStaging.hpp): sends are packed through the execution-space instance's fusion
// queue, so that the sends of one step share a launch, and posted when the kernel's completion flag says the pack is
// done; receives land in a staging buffer and are unpacked after arrival (the unpacks of receives that arrive in one
// sweep of wait_all share a launch). Sends to one destination reach MPI in the order they were started
// (KokkosDDT_MPISendOrder.hpp), and every message is one message of the transport at any size. A receive
// checks that the message's size is its type's: a shorter one throws Error(MPI) naming `type`, a longer one is MPI's
// MPI_ERR_TRUNCATE (an Error with MPI_ERRORS_RETURN on the communicator). Type signatures are not sent: as with
// MPI_BYTE, only sizes are compared. MPI_PROC_NULL moves nothing and completes at once.

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_FusionQueue.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MPIRequest.hpp"
#include "KokkosDDT_MPISendOrder.hpp"
#include "KokkosDDT_MPIStaging.hpp"
#include "KokkosDDT_Transports.hpp"

namespace KokkosDDT::Impl {

// The fusion queue that packs and unpacks the messages of one execution-space instance (made on first use; released at
// Kokkos::finalize).
template <class ExecSpace>
std::shared_ptr<FusionQueue<ExecSpace>> message_queue(const ExecSpace& space) {
  static std::mutex mutex;
  static auto* queues = [] {
    auto* q = new std::map<std::uint32_t, std::shared_ptr<FusionQueue<ExecSpace>>>;
    Kokkos::push_finalize_hook([q] {
      const std::lock_guard<std::mutex> lock(mutex);
      q->clear();
    });
    return q;
  }();
  const std::lock_guard<std::mutex> lock(mutex);
  auto& queue = (*queues)[space.impl_instance_id()];
  if (!queue) queue = std::make_shared<FusionQueue<ExecSpace>>(space);
  return queue;
}

// Whether a transport may read or write `p` itself (host memory always; device memory when it reaches it).
template <class ExecSpace>
bool transport_reaches(const void* p, const Transport& transport) {
  using MemSpace = typename ExecSpace::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible) {
    (void)p;
    (void)transport;
    return true;
  } else {
    const PointerKind kind = pointer_kind(p);
    return (kind != PointerKind::Device && kind != PointerKind::Managed) || transport.capabilities().device_memory;
  }
}

// One typed send or receive on an execution-space instance: one message of the MPI transport, of any size, on the
// user's communicator (KokkosDDT_MpiTransport.hpp).
//
//   send:    Idle -start-> Queued (pack in flight, or an earlier send to the same destination is) -> Posted -> Done
//   receive: Idle -start-> Posted -> Unpacking (staged) -> Done
template <class ExecSpace, Direction Dir>
class TypedMessage final : public Operation, private OrderedSend {
  static constexpr bool sending = Dir == Direction::Pack;

 public:
  // `absolute`: buf is KokkosDDT::bottom (null), the type's displacements are addresses.
  TypedMessage(const char* where, const ExecSpace& space, void* buf, bool absolute, std::int64_t count,
               const Datatype& type, int peer, int tag, MPI_Comm comm)
      : where_(where),
        buf_(static_cast<char*>(buf)),
        absolute_(absolute),
        count_(count),
        type_(type),
        peer_(peer),
        comm_(comm) {
    const CommittedType& c = type.impl_committed(where);
    require_nonnegative(count, where, "count");
    bytes_ = checked_mul(count, c.size, where, "count");
    if (bytes_ > 0 && !absolute && buf_ == nullptr)  // (before any offset makes a null buffer look valid)
      throw_error(
          ErrorCode::NullPointer, where, "buf",
          "is null but " + std::to_string(bytes_) + " bytes move (use KokkosDDT::bottom for absolute addresses)");
    std::int64_t offset = 0;
    const bool contiguous = contiguous_run(c, count, offset);
    char* run = absolute ? reinterpret_cast<char*>(static_cast<std::intptr_t>(offset)) : buf_ + offset;
    if (contiguous && bytes_ > 0 && run == nullptr) throw_error(ErrorCode::NullPointer, where, "buf", "is null");
    const std::unique_ptr<Transport> transport = user_transport(comm);  // (the user's communicator: MPI's messages)
    // MPI_PROC_NULL: checked like any message, then nothing moves (it completes at once, with an empty status).
    direct_ = peer == MPI_PROC_NULL || (contiguous && (bytes_ == 0 || transport_reaches<ExecSpace>(run, *transport)));
    if (direct_) {
      if (bytes_ > 0) check_pointer<ExecSpace>(run, where, "buf");
      message_ = bytes_ > 0 ? run : nullptr;
    } else {
      queue_ = message_queue(space);
      staging_ = take_staging<ExecSpace>(bytes_, transport->capabilities().device_memory);
      message_ = staging_.data;
      // Every check a pack or unpack makes, now, before anything is posted.
      (void)prepare_transfer<ExecSpace, Dir>(where, type, count, buf_, absolute_, staging_.data, bytes_,
                                             sending ? "dst_bytes" : "src_bytes", {});
    }
    if (peer == MPI_PROC_NULL) {
      message_ = nullptr, bytes_ = 0;
      return;
    }
    std::vector<ByteMessage> mine{{message_, bytes_, peer, tag}}, none;
    wire_ = sending ? transport->make_set(std::move(mine), std::move(none), false, where)
                    : transport->make_set(std::move(none), std::move(mine), false, where);
  }

  ~TypedMessage() override {
    try {
      if (state_ == State::Queued) flush_send(comm_, peer_, *this);  // it and every send ahead of it reach MPI
      if (state_ == State::Unpacking) queue_->wait(transform_);      // never free a buffer under a kernel
      wire_.reset();  // a receive in flight is cancelled, a send is left to MPI
      if (sending && state_ == State::Posted && staging_.owner) keep_until_exit(staging_.owner);
    } catch (...) {
    }
  }

  void start() override {
    error_ = nullptr;
    if constexpr (sending) {
      if (!direct_)
        transform_ = absolute_ ? queue_->pack(bottom, count_, type_, staging_.data, bytes_)
                               : queue_->pack(buf_, count_, type_, staging_.data, bytes_);
      state_ = State::Queued;
      // Posted now when the pack ran at once (a one-tile host pack) and no earlier send to this destination waits;
      // a pending pack stays in the batch being collected.
      if (peer_ == MPI_PROC_NULL) return post();
      start_send(comm_, peer_, *this);
    } else {
      post();
    }
    rethrow();
  }

  bool progress() override {
    if (state_ == State::Queued) progress_sends();
    rethrow();
    if (state_ == State::Queued) return false;
    if (state_ == State::Posted) {
      bool complete = false;
      try {
        complete = wire_->test();
      } catch (...) {  // the message failed (MPI_ERR_TRUNCATE): it is gone
        state_ = State::Done;
        throw;
      }
      if (!complete) return false;
      if constexpr (!sending) return received();
      state_ = State::Done;
    }
    if (state_ == State::Unpacking) {
      if (!queue_->test(transform_)) return false;
      state_ = State::Done;
    }
    return state_ == State::Done;
  }

  Arrival status() const override { return status_; }

 private:
  enum class State { Idle, Queued, Posted, Unpacking, Done };

  bool ready(bool may_launch) noexcept override {
    if (direct_) return true;
    try {
      return may_launch ? queue_->test(transform_) : queue_->done(transform_);
    } catch (...) {  // a failed launch: reported by this request's test
      error_ = std::current_exception();
      return true;
    }
  }

  void post() noexcept override {
    state_ = State::Posted;
    if (error_) return;
    if (peer_ == MPI_PROC_NULL) {  // complete at once, with MPI's empty status (MPICH 4.0.2's MPI_Test leaves it 0)
      status_ = Arrival{MPI_PROC_NULL, MPI_ANY_TAG, 0};
      state_ = State::Done;
      return;
    }
    try {
      if (sending)
        wire_->post_sends();
      else
        wire_->post_receives();
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  void rethrow() {
    if (!error_) return;
    state_ = State::Done;
    std::rethrow_exception(std::exchange(error_, nullptr));
  }

  // The receive is complete: its size checked, its staged bytes handed to the unpack.
  bool received() {
    state_ = State::Done;
    status_ = wire_->arrival(0);
    const std::int64_t got = status_.bytes;
    if (got != bytes_)
      throw_error(ErrorCode::MPI, where_, "type",
                  "received " + std::to_string(got) + " bytes where the receive's type and count make " +
                      std::to_string(bytes_) + " (from rank " + std::to_string(status_.source) +
                      "): the sender's message is shorter (MPI_ERR_TRUNCATE)");
    if (direct_) return true;
    transform_ = absolute_ ? queue_->unpack(staging_.data, bytes_, bottom, count_, type_)
                           : queue_->unpack(staging_.data, bytes_, buf_, count_, type_);
    state_ = State::Unpacking;
    // Not launched here: the next test launches it, together with the unpacks of the other receives that arrived
    // in the same sweep of wait_all/test_all (one fused launch, as the sends' packs share one). An unpack that ran
    // at once (a one-tile host unpack) completes now.
    if (!queue_->done(transform_)) return false;
    state_ = State::Done;
    return true;
  }

  const char* where_;
  char* buf_;
  bool absolute_;
  std::int64_t count_;
  Datatype type_;
  int peer_;
  MPI_Comm comm_;
  std::int64_t bytes_ = 0;
  bool direct_ = false;
  char* message_ = nullptr;  // what MPI sends or receives: the user's buffer (direct) or the staging buffer
  std::shared_ptr<FusionQueue<ExecSpace>> queue_;
  Staging staging_;
  FusionRequest transform_;
  std::unique_ptr<MessageSet> wire_;  // the message (none for MPI_PROC_NULL)
  State state_ = State::Idle;
  Arrival status_{};
  std::exception_ptr error_;  // recorded where throwing is not possible (a post from another request's test)
};

// Makes one typed message, not started. A class, so that the library compiles TypedMessage once per backend and
// direction (explicit instantiation, below); p2p and the collectives make their messages here.
template <class ExecSpace, Direction Dir>
struct MessageFactory {
  static std::shared_ptr<Operation> make(const char* where, const ExecSpace& space, const void* buf, std::int64_t count,
                                         const Datatype& type, int peer, int tag, MPI_Comm comm, bool absolute = false);
};

template <class ExecSpace, Direction Dir>
std::shared_ptr<Operation> MessageFactory<ExecSpace, Dir>::make(const char* where, const ExecSpace& space,
                                                                const void* buf, std::int64_t count,
                                                                const Datatype& type, int peer, int tag, MPI_Comm comm,
                                                                bool absolute) {
  return std::make_shared<TypedMessage<ExecSpace, Dir>>(where, space, const_cast<void*>(buf), absolute, count, type,
                                                        peer, tag, comm);
}

// Compiled once per backend in the library (mpi/src/eti/KokkosDDT_ETI_P2P.cpp).
#define KOKKOSDDT_EXTERN_MESSAGES(Space)                         \
  extern template struct MessageFactory<Space, Direction::Pack>; \
  extern template struct MessageFactory<Space, Direction::Unpack>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_MESSAGES)
#undef KOKKOSDDT_EXTERN_MESSAGES

template <class View>
void* view_data(const View& v) {
  return const_cast<typename View::non_const_value_type*>(v.data());
}

// One message as a Request: started at once (isend/irecv) or persistent (send_init/recv_init, started by start()).
// `absolute`: buf is KokkosDDT::bottom.
template <class ExecSpace, Direction Dir>
mpi::Request message_request(const char* where, const ExecSpace& space, const void* buf, bool absolute,
                             std::int64_t count, const Datatype& type, int peer, int tag, MPI_Comm comm,
                             bool persistent) {
  auto op = MessageFactory<ExecSpace, Dir>::make(where, space, buf, count, type, peer, tag, comm, absolute);
  if (persistent) return mpi::Request(std::move(op), true);
  op->start();
  return mpi::make_active(std::move(op));
}

}  // namespace KokkosDDT::Impl

namespace KokkosDDT::mpi {

// Nonblocking typed send of `count` instances of `type` at `buf`. Throws Error before anything is posted when an
// argument is bad (uncommitted type, negative count, null or unreachable buffer).
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
Request isend(const ExecSpace& space, const void* buf, std::int64_t count, const Datatype& type, int dest, int tag,
              MPI_Comm comm) {
  return Impl::message_request<ExecSpace, Impl::Direction::Pack>("KokkosDDT::mpi::isend", space, buf, false, count,
                                                                 type, dest, tag, comm, false);
}

// Nonblocking typed receive into `buf` (source may be MPI_ANY_SOURCE, tag MPI_ANY_TAG).
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
Request irecv(const ExecSpace& space, void* buf, std::int64_t count, const Datatype& type, int source, int tag,
              MPI_Comm comm) {
  return Impl::message_request<ExecSpace, Impl::Direction::Unpack>("KokkosDDT::mpi::irecv", space, buf, false, count,
                                                                   type, source, tag, comm, false);
}

// Persistent forms: the checks, the staging buffer and the queue are set up once; start() begins each round.
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
Request send_init(const ExecSpace& space, const void* buf, std::int64_t count, const Datatype& type, int dest, int tag,
                  MPI_Comm comm) {
  return Impl::message_request<ExecSpace, Impl::Direction::Pack>("KokkosDDT::mpi::send_init", space, buf, false, count,
                                                                 type, dest, tag, comm, true);
}
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
Request recv_init(const ExecSpace& space, void* buf, std::int64_t count, const Datatype& type, int source, int tag,
                  MPI_Comm comm) {
  return Impl::message_request<ExecSpace, Impl::Direction::Unpack>("KokkosDDT::mpi::recv_init", space, buf, false,
                                                                   count, type, source, tag, comm, true);
}

// KokkosDDT::bottom (MPI_BOTTOM): the type's displacements are absolute addresses (hindexed or struct types built
// from object addresses).
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
Request isend(const ExecSpace& space, Bottom, std::int64_t count, const Datatype& type, int dest, int tag,
              MPI_Comm comm) {
  return Impl::message_request<ExecSpace, Impl::Direction::Pack>("KokkosDDT::mpi::isend", space, nullptr, true, count,
                                                                 type, dest, tag, comm, false);
}
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
Request irecv(const ExecSpace& space, Bottom, std::int64_t count, const Datatype& type, int source, int tag,
              MPI_Comm comm) {
  return Impl::message_request<ExecSpace, Impl::Direction::Unpack>("KokkosDDT::mpi::irecv", space, nullptr, true, count,
                                                                   type, source, tag, comm, false);
}
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
Request send_init(const ExecSpace& space, Bottom, std::int64_t count, const Datatype& type, int dest, int tag,
                  MPI_Comm comm) {
  return Impl::message_request<ExecSpace, Impl::Direction::Pack>("KokkosDDT::mpi::send_init", space, nullptr, true,
                                                                 count, type, dest, tag, comm, true);
}
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
Request recv_init(const ExecSpace& space, Bottom, std::int64_t count, const Datatype& type, int source, int tag,
                  MPI_Comm comm) {
  return Impl::message_request<ExecSpace, Impl::Direction::Unpack>("KokkosDDT::mpi::recv_init", space, nullptr, true,
                                                                   count, type, source, tag, comm, true);
}

// Views: `count` instances of `type` starting at view.data() (the View's memory space must be reachable from space).
template <class ExecSpace, class View, Impl::enable_if_exec<ExecSpace> = 0, Impl::enable_if_view<View> = 0>
Request isend(const ExecSpace& space, const View& buf, std::int64_t count, const Datatype& type, int dest, int tag,
              MPI_Comm comm) {
  Impl::require_accessible<ExecSpace, typename View::memory_space>("KokkosDDT::mpi::isend", "buf");
  return isend(space, Impl::view_data(buf), count, type, dest, tag, comm);
}
template <class ExecSpace, class View, Impl::enable_if_exec<ExecSpace> = 0, Impl::enable_if_view<View> = 0>
Request irecv(const ExecSpace& space, const View& buf, std::int64_t count, const Datatype& type, int source, int tag,
              MPI_Comm comm) {
  Impl::require_accessible<ExecSpace, typename View::memory_space>("KokkosDDT::mpi::irecv", "buf");
  return irecv(space, Impl::view_data(buf), count, type, source, tag, comm);
}

template <class ExecSpace, class View, Impl::enable_if_exec<ExecSpace> = 0, Impl::enable_if_view<View> = 0>
Request send_init(const ExecSpace& space, const View& buf, std::int64_t count, const Datatype& type, int dest, int tag,
                  MPI_Comm comm) {
  Impl::require_accessible<ExecSpace, typename View::memory_space>("KokkosDDT::mpi::send_init", "buf");
  return send_init(space, Impl::view_data(buf), count, type, dest, tag, comm);
}
template <class ExecSpace, class View, Impl::enable_if_exec<ExecSpace> = 0, Impl::enable_if_view<View> = 0>
Request recv_init(const ExecSpace& space, const View& buf, std::int64_t count, const Datatype& type, int source,
                  int tag, MPI_Comm comm) {
  Impl::require_accessible<ExecSpace, typename View::memory_space>("KokkosDDT::mpi::recv_init", "buf");
  return recv_init(space, Impl::view_data(buf), count, type, source, tag, comm);
}

// Without an instance: the default execution space's default instance.
inline Request isend(const void* buf, std::int64_t count, const Datatype& type, int dest, int tag, MPI_Comm comm) {
  return isend(Kokkos::DefaultExecutionSpace(), buf, count, type, dest, tag, comm);
}
inline Request irecv(void* buf, std::int64_t count, const Datatype& type, int source, int tag, MPI_Comm comm) {
  return irecv(Kokkos::DefaultExecutionSpace(), buf, count, type, source, tag, comm);
}

}  // namespace KokkosDDT::mpi
