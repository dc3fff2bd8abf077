// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// datatype_of(view): the Datatype of a Kokkos::View or subview of rank 0-8 in any layout, relative to view.data().
//
// Packed order is the View's layout order: LayoutRight packs the last index fastest, LayoutLeft the first, and
// LayoutStride orders dimensions by increasing stride (ties: the later index faster), so a strided subview of a
// LayoutRight View packs like LayoutRight. A contiguous View normalizes to one run (a plain memcpy).

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Constructors.hpp"
#include "KokkosDDT_Primitives.hpp"

namespace KokkosDDT {

template <class View, std::enable_if_t<Kokkos::is_view_v<View>, int> = 0>
Datatype datatype_of(const View& view) {
  using T = typename View::non_const_value_type;
  using Layout = typename View::array_layout;
  constexpr int rank = static_cast<int>(View::rank());
  static_assert(rank <= 8, "KokkosDDT::datatype_of: Views have rank <= 8");
  Datatype type = primitive<T>();
  if constexpr (rank > 0) {
    int order[8];  // dimensions, fastest first
    for (int i = 0; i < rank; ++i) order[i] = std::is_same_v<Layout, Kokkos::LayoutLeft> ? i : rank - 1 - i;
    if constexpr (!std::is_same_v<Layout, Kokkos::LayoutLeft> && !std::is_same_v<Layout, Kokkos::LayoutRight>)
      std::stable_sort(order, order + rank, [&](int a, int b) { return view.stride(a) < view.stride(b); });
    for (int k = 0; k < rank; ++k) {
      const int d = order[k];
      type = hvector(static_cast<std::int64_t>(view.extent(d)), 1,
                     static_cast<std::int64_t>(view.stride(d)) * static_cast<std::int64_t>(sizeof(T)), type);
    }
  }
  return type;
}

}  // namespace KokkosDDT
