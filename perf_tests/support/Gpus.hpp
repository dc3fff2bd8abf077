// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which processes of a communicator share a GPU: NCCL refuses two processes on one GPU, so a benchmark's NCCL
// contenders run only where every process has a GPU of its own, and are skipped with this reason elsewhere (a one-GPU
// machine). Collective over comm; the same answer on every process.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace bench {

// "ranks a and b share the GPU <PCI bus id>", or "" when every process has a GPU of its own (or none: host builds).
inline std::string gpu_sharing(MPI_Comm comm) {
  constexpr int kId = 32;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char mine[kId] = {};
#if defined(KOKKOS_ENABLE_CUDA)
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetPCIBusId(mine, kId, device) != cudaSuccess) {
    (void)cudaGetLastError();
    std::snprintf(mine, kId, "unknown-%d", rank);
  }
#else
  std::snprintf(mine, kId, "host-%d", rank);
#endif
  std::vector<char> all(static_cast<std::size_t>(kId) * size);
  MPI_Allgather(mine, kId, MPI_CHAR, all.data(), kId, MPI_CHAR, comm);
  for (int a = 0; a < size; ++a)
    for (int b = a + 1; b < size; ++b)
      if (std::strncmp(&all[kId * a], &all[kId * b], kId) == 0)
        return "ranks " + std::to_string(a) + " and " + std::to_string(b) + " share the GPU " +
               std::string(&all[kId * a], strnlen(&all[kId * a], kId));
  return "";
}

}  // namespace bench
