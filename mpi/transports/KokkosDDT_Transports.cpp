// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Transports.hpp"

#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MpiTransport.hpp"
#if KOKKOSDDT_HAVE_NCCL
#include "KokkosDDT_NcclTransport.hpp"
#endif

namespace KokkosDDT::mpi {

const char* name(TransportKind kind) { return kind == TransportKind::MPI ? "MPI" : "NCCL"; }

bool has_transport(TransportKind kind) {
  if (kind == TransportKind::MPI) return true;
  return KOKKOSDDT_HAVE_NCCL != 0;
}

void free_cached_communicators() {
#if KOKKOSDDT_HAVE_NCCL
  Impl::free_nccl_cache();
#endif
}

}  // namespace KokkosDDT::mpi

namespace KokkosDDT::Impl {

std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice, MPI_Comm comm, const char* where) {
  if (choice.kind() == mpi::TransportKind::MPI) return MpiTransport::duplicate(comm, where);
#if KOKKOSDDT_HAVE_NCCL
  if (choice.kind() == mpi::TransportKind::NCCL)
    return choice.users_own() ? nccl_transport_on(choice.nccl(), comm, where) : nccl_transport(comm, where);
#endif
  throw_error(
      ErrorCode::InvalidArgument, where, "transport",
      std::string("is ") + mpi::name(choice) + ", which this build does not have (NCCL: a CUDA build with NCCL)");
}

}  // namespace KokkosDDT::Impl
