// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_MPIError.hpp"

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {

std::string mpi_error_string(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, len);
}

void mpi_check(int rc, const char* where, const char* call) {
  if (rc == MPI_SUCCESS) return;
  throw_error(ErrorCode::MPI, where, "", std::string(call) + " failed: " + mpi_error_string(rc));
}

}  // namespace KokkosDDT::Impl
