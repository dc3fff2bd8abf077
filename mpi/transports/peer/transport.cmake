# SPDX-License-Identifier: BSD-3-Clause
# The peer transport (CUDA builds): CUDA IPC and stream memory operations (the driver library). It routes (its entry's
# make_routing), so the registry's "auto" routes through it on device spaces. Its test pass: two processes (on one GPU
# or two: CUDA IPC works within one device too).
option(KokkosDDT_ENABLE_PEER "Build the CUDA-IPC peer transport (and auto's routes) in CUDA builds" ON)
kokkosddt_kokkos_has_cuda(cuda)
if(KokkosDDT_ENABLE_PEER AND cuda)
  find_package(CUDAToolkit REQUIRED)
  kokkosddt_add_transport(peer ENTRIES peer_transport_entry HEADER KokkosDDT_PeerTransport.hpp
                          SOURCES KokkosDDT_PeerTransport.cpp KokkosDDT_PeerLinks.cpp KokkosDDT_PeerMemory.cpp
                                  KokkosDDT_PeerBoard.cpp LINK CUDA::cuda_driver CUDA::cudart
                          PACKAGE_DEPENDENCY CUDAToolkit TEST_RANKS 2 TEST_BACKENDS Cuda)
endif()
