// SPDX-License-Identifier: BSD-3-Clause
// Halo plans of 1-D and 3-D fields (HaloPlanCheck.hpp; 2-D and the rest: Test_HaloPlan.cpp; 4-D:
// Test_HaloPlanRank4.cpp: each file instantiates the check for its ranks, so that none compiles for a minute).
#include "mpi/HaloPlanCheck.hpp"

using namespace KokkosDDT::Test;

TEST_CASE("mpi halo plan: 1-D fields", "[mpi][halo]") { check_rank<1>(); }
TEST_CASE("mpi halo plan: 3-D fields", "[mpi][halo]") { check_rank<3>(); }
