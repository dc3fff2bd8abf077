// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_MpiTransport.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MpiGpuAware.hpp"
#include "KokkosDDT_MpiBytes.hpp"

namespace KokkosDDT::Impl {
namespace {

class MpiMessageSet final : public MessageSet {
 public:
  MpiMessageSet(MPI_Comm comm, std::vector<ByteMessage> sends, std::vector<ByteMessage> receives, bool persistent,
                const char* where)
      : comm_(comm), where_(where), persistent_(persistent), sends_(sends.size()) {
    messages_.reserve(sends.size() + receives.size());
    for (const ByteMessage& w : sends) messages_.push_back(Message{w, true, ByteType(w.bytes)});
    for (const ByteMessage& w : receives) messages_.push_back(Message{w, false, ByteType(w.bytes)});
    if (!persistent_) return;
    for (Message& m : messages_)
      post_bytes(m.send ? ByteCall::SendInit : ByteCall::RecvInit, m.wire.data, m.layout, m.wire.peer, m.wire.tag,
                 comm_, &m.request, where_);
  }

  ~MpiMessageSet() override {
    if (mpi_finalized()) return;
    for (Message& m : messages_) {
      if (m.active && !m.send) {  // a receive nobody will complete
        MPI_Cancel(&m.request);
        MPI_Wait(&m.request, MPI_STATUS_IGNORE);
      }
      // A send in flight is handed to MPI, which completes it; an inactive persistent request is freed.
      if (m.request != MPI_REQUEST_NULL) MPI_Request_free(&m.request);
    }
  }

  void post_receives() override { post(sends_, messages_.size()); }
  void post_sends() override { post(0, sends_); }

  // Stops at the first message still in flight: each MPI_Test runs MPI's progress engine, and a wait loop that tested
  // every message of a 26-neighbour step each time round is slower on small steps.
  bool test() override {
    for (Message& m : messages_) {
      if (!m.active) continue;
      int flag = 0;
      const int rc = MPI_Test(&m.request, &flag, &m.status);
      if (rc != MPI_SUCCESS) {  // completed with an error (MPI_ERR_TRUNCATE): a nonpersistent request is freed
        m.active = false;
        if (!persistent_) m.request = MPI_REQUEST_NULL;
        mpi_check(rc, where_, m.send ? "MPI_Test (send)" : "MPI_Test (receive)");
      }
      if (!flag) return false;
      m.active = false;
    }
    return true;
  }

  // MPI_Wait per message, the receives first: MPI's blocking wait spins in its progress engine, which is faster on
  // small steps than polling MPI_Test through this layer.
  void wait() override {
    for (std::size_t i = 0; i < messages_.size(); ++i) {
      Message& m = messages_[(sends_ + i) % messages_.size()];
      if (!m.active) continue;
      const int rc = MPI_Wait(&m.request, &m.status);
      m.active = false;
      if (rc != MPI_SUCCESS) {
        if (!persistent_) m.request = MPI_REQUEST_NULL;
        mpi_check(rc, where_, m.send ? "MPI_Wait (send)" : "MPI_Wait (receive)");
      }
    }
  }

  std::vector<int> late_peers() override {
    std::vector<int> late;
    for (std::size_t i = sends_; i < messages_.size(); ++i) {
      Message& m = messages_[i];
      if (!m.active) continue;
      int flag = 0;
      if (MPI_Test(&m.request, &flag, &m.status) == MPI_SUCCESS && flag) {
        m.active = false;
        continue;
      }
      if (std::find(late.begin(), late.end(), m.wire.peer) == late.end()) late.push_back(m.wire.peer);
    }
    return late;
  }

  void enqueue(StreamRef) override { refuse_stream(); }
  void join(StreamRef) override { refuse_stream(); }
  [[noreturn]] void refuse_stream() const {
    throw_error(ErrorCode::InvalidArgument, where_, "transport",
                "MPI completes messages on the host: it cannot enqueue them on an execution space");
  }

  Arrival arrival(std::size_t receive) const override {
    const MPI_Status& s = messages_.at(sends_ + receive).status;
    return {s.MPI_SOURCE, s.MPI_TAG, received_bytes(s)};
  }

 private:
  struct Message {
    ByteMessage wire;
    bool send = false;
    ByteType layout;
    MPI_Request request = MPI_REQUEST_NULL;
    bool active = false;
    MPI_Status status{};
  };

  void post(std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      Message& m = messages_[i];
      if (m.active)
        throw_error(ErrorCode::InvalidArgument, where_, "request", "is still in flight: complete it before reposting");
      if (persistent_)
        mpi_check(MPI_Start(&m.request), where_, m.send ? "MPI_Start (send)" : "MPI_Start (receive)");
      else
        post_bytes(m.send ? ByteCall::Isend : ByteCall::Irecv, m.wire.data, m.layout, m.wire.peer, m.wire.tag, comm_,
                   &m.request, where_);
      m.active = true;
    }
  }

  MPI_Comm comm_;
  const char* where_;
  bool persistent_;
  std::size_t sends_;
  std::vector<Message> messages_;  // the sends, then the receives
};

}  // namespace

std::shared_ptr<MpiTransport> MpiTransport::duplicate(MPI_Comm comm, const char* where) {
  auto t = std::make_shared<MpiTransport>(duplicate_comm(comm, where));
  t->owned_ = true;
  return t;
}

MpiTransport::~MpiTransport() {
  if (owned_) free_comm(comm_);
}

TransportCapabilities MpiTransport::known_capabilities() {
  TransportCapabilities c;
  c.completion = Completion::Host;
  c.host_memory = true;
  c.device_memory = false;
  c.tags = true;
  return c;
}

TransportCapabilities MpiTransport::capabilities() const {
  TransportCapabilities c = known_capabilities();
  c.device_memory = mpi::gpu_aware();
  return c;
}

int MpiTransport::rank() const {
  if (rank_ < 0) MPI_Comm_rank(comm_, &rank_);
  return rank_;
}

int MpiTransport::size() const {
  if (size_ < 0) MPI_Comm_size(comm_, &size_);
  return size_;
}

std::unique_ptr<MessageSet> MpiTransport::make_set(std::vector<ByteMessage> sends, std::vector<ByteMessage> receives,
                                                   bool persistent, const char* where) {
  return std::make_unique<MpiMessageSet>(comm_, std::move(sends), std::move(receives), persistent, where);
}

TransportEntry mpi_transport_entry() {
  return {"mpi", MpiTransport::known_capabilities(),
          [](const mpi::TransportChoice&, const std::shared_ptr<MpiTransport>& control,
             const char*) -> std::shared_ptr<Transport> { return control; }};
}

}  // namespace KokkosDDT::Impl
