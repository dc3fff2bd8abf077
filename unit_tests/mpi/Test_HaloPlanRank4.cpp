// SPDX-License-Identifier: BSD-3-Clause
// Halo plans of 4-D fields (HaloPlanCheck.hpp; the other ranks: Test_HaloPlan.cpp and Test_HaloPlanRanks.cpp).
#include "mpi/HaloPlanCheck.hpp"

using namespace KokkosDDT::Test;

TEST_CASE("mpi halo plan: 4-D fields", "[mpi][halo]") { check_rank<4>(); }
