// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whether the linked MPI reads and writes device memory (GPU-aware, "CUDA-aware"): what the MPI transport answers when
// asked whether it reaches device memory (Transport::capabilities().device_memory), and so where its clients stage
// device data (in the device's memory, or in pinned host memory the MPI can read).

namespace KokkosDDT::mpi {

// Detected from MPIX_Query_cuda_support where the MPI has it (Open MPI's mpi-ext.h, MPICH >= 4);
// KOKKOSDDT_MPI_GPU_AWARE=0/1 in the environment overrides, and so does set_gpu_aware() (which wins over both).
bool gpu_aware();
void set_gpu_aware(bool aware);

}  // namespace KokkosDDT::mpi
