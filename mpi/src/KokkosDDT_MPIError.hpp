// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// MPI return codes as KokkosDDT::Error(ErrorCode::MPI), carrying the MPI's error string. MPI reports errors through
// the communicator's error handler: with MPI's default (MPI_ERRORS_ARE_FATAL) the MPI aborts before KokkosDDT sees the
// code, so set MPI_ERRORS_RETURN on communicators whose errors should become exceptions. Halo plans do that on their
// own duplicate of the communicator.

#include <mpi.h>

#include <string>

namespace KokkosDDT::Impl {

// Throws Error(MPI) naming `where` and `call` unless rc is MPI_SUCCESS.
void mpi_check(int rc, const char* where, const char* call);

// The MPI's text for an error code.
std::string mpi_error_string(int rc);

}  // namespace KokkosDDT::Impl
