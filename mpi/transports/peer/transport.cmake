# SPDX-License-Identifier: BSD-3-Clause
# The peer transport (CUDA builds): CUDA IPC and stream memory operations (the driver library), and "auto", which
# routes through it. Its test pass: two processes (on one GPU or two: CUDA IPC works within one device too).
option(KokkosDDT_ENABLE_PEER "Build the CUDA-IPC peer transport (and auto's routes) in CUDA builds" ON)
kokkosddt_kokkos_has_cuda(cuda)
if(KokkosDDT_ENABLE_PEER AND cuda)
  find_package(CUDAToolkit REQUIRED)
  kokkosddt_add_transport(peer ENTRIES peer_transport_entry auto_transport_entry HEADER KokkosDDT_PeerTransport.hpp
                          SOURCES KokkosDDT_PeerTransport.cpp KokkosDDT_PeerLinks.cpp KokkosDDT_PeerMemory.cpp
                                  KokkosDDT_PeerBoard.cpp LINK CUDA::cuda_driver CUDA::cudart
                          PACKAGE_DEPENDENCY CUDAToolkit TEST_RANKS 2 TEST_BACKENDS Cuda)
endif()
