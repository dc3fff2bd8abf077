// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Bad input must throw KokkosDDT::Error with the right code, naming the offending argument in code and message.
#include <string>

#include "support/Catch.hpp"
#include "KokkosDDT.hpp"

namespace KokkosDDT::Test {

template <class F>
void require_error(F&& f, ErrorCode code, const std::string& argument) {
  try {
    f();
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
    CHECK(e.argument() == argument);
    CHECK(std::string(e.what()).find(argument) != std::string::npos);
    return;
  }
  FAIL("no KokkosDDT::Error thrown (expected argument '" << argument << "')");
}

}  // namespace KokkosDDT::Test
