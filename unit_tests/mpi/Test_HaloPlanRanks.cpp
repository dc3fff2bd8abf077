// SPDX-License-Identifier: BSD-3-Clause
// Halo plans of 3-D and 4-D fields (HaloPlanCheck.hpp; the 1-D and 2-D ones and the rest: Test_HaloPlan.cpp).
#include "mpi/HaloPlanCheck.hpp"

using namespace KokkosDDT::Test;

TEST_CASE("mpi halo plan: 3-D fields", "[mpi][halo]") { check_rank<3>(); }
TEST_CASE("mpi halo plan: 4-D fields", "[mpi][halo]") { check_rank<4>(); }
