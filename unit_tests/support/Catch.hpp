// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Catch2 v3 where found, v2 (Debian's 2.13) otherwise: the tests use only macros both provide.
#if defined(KOKKOSDDT_CATCH2_V3)
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif
