// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The execution space a backend test executable was built for (backends/CMakeLists.txt builds one per space).
#include <Kokkos_Core.hpp>

#ifndef KOKKOSDDT_TEST_EXEC_SPACE
#error "backend tests are compiled with -DKOKKOSDDT_TEST_EXEC_SPACE=Kokkos::<space>"
#endif

namespace KokkosDDT::Test {
using ExecSpace = KOKKOSDDT_TEST_EXEC_SPACE;
}
