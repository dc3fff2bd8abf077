// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_MPIRequest.hpp"

#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MPISendOrder.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

void wait_operation(Operation& op) {
  wait_until([&] {
    progress_sends();
    return op.progress();
  });
}

}  // namespace KokkosDDT::Impl

namespace KokkosDDT::mpi {

Request make_active(std::shared_ptr<Impl::Operation> op) {
  Request r(std::move(op), false);
  r.active_ = true;
  return r;
}

void Request::start() {
  const char* where = "KokkosDDT::mpi::Request::start";
  if (!op_) Impl::throw_error(ErrorCode::InvalidArgument, where, "request", "is null");
  if (!persistent_)
    Impl::throw_error(ErrorCode::InvalidArgument, where, "request", "is not persistent (send_init/recv_init make one)");
  if (active_)
    Impl::throw_error(ErrorCode::InvalidArgument, where, "request", "is active: wait for it before starting it again");
  op_->start();
  active_ = true;
}

bool Request::test() {
  Impl::progress_sends();  // any test posts the queued sends whose packs have finished, not only this request's
  if (!op_ || !active_) return true;
  if (!op_->progress()) return false;
  last_ = op_->status();
  active_ = false;
  if (!persistent_) op_.reset();  // as MPI sets a completed request to MPI_REQUEST_NULL
  return true;
}

void Request::wait() {
  Impl::wait_until([&] { return test(); });
}

MPI_Status Request::status() const {
  MPI_Status s{};
  s.MPI_SOURCE = last_.source;
  s.MPI_TAG = last_.tag;
  s.MPI_ERROR = MPI_SUCCESS;
  MPI_Status_set_elements_x(&s, MPI_BYTE, static_cast<MPI_Count>(last_.bytes));
  return s;
}

bool test_all(std::vector<Request>& requests) {
  bool all = true;
  for (Request& r : requests) all = r.test() && all;  // every one advances, even after one is found incomplete
  return all;
}

void wait_all(std::vector<Request>& requests) {
  Impl::wait_until([&] { return test_all(requests); });
}

int wait_any(std::vector<Request>& requests) {
  int found = MPI_UNDEFINED;
  Impl::wait_until([&] {
    bool any_active = false;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (!requests[i].is_active()) continue;
      any_active = true;
      if (requests[i].test()) {
        found = static_cast<int>(i);
        return true;
      }
    }
    return !any_active;  // (none active: MPI_UNDEFINED)
  });
  return found;
}

void start_all(std::vector<Request>& requests) {
  for (Request& r : requests) r.start();
}

}  // namespace KokkosDDT::mpi
