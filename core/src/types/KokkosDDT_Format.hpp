// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Rendering of integer lists for humans (describe(), layouts in messages and tests): long lists are cut after eight
// entries, so a type with a million blocks still prints in one line.

#include <cstdint>
#include <ostream>
#include <vector>

namespace KokkosDDT::Impl {

inline void write_list(std::ostream& os, const std::vector<std::int64_t>& v, const char* separator) {
  os << "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i == 8 && v.size() > 10) {
      os << separator << "...(" << v.size() << " entries)";
      break;
    }
    os << (i ? separator : "") << v[i];
  }
  os << "]";
}

}  // namespace KokkosDDT::Impl
