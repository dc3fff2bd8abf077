# SPDX-License-Identifier: BSD-3-Clause
# The MPI transport: always built (the control plane of every plan, and the typed p2p's messages). Its test pass: one
# process whose plans send their messages to themselves through it.
kokkosddt_add_transport(mpi ENTRIES mpi_transport_entry HEADER KokkosDDT_MpiTransport.hpp
                        SOURCES KokkosDDT_MpiBytes.cpp KokkosDDT_MpiGpuAware.cpp KokkosDDT_MpiTransport.cpp
                        TEST_ENVIRONMENT KOKKOSDDT_HALO_SELF_MESSAGES=1)
