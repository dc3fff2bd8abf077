// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Devices: one launch of a canonical shape's kernel (ShapeInterleave) for a single pack, unpack or copy.

#include <cstdint>
#include <string>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_ShapeInterleave.hpp"

namespace KokkosDDT::Impl {

// A transfer of a Contig or Strided shape (ShapeInterleave), flat, one word per thread (a copy: `packed` is the
// destination's origin, moved by the two types' delta). Words of 4 bytes and more only: narrower ones keep the
// interleaved traversal, which widens the packed side and each thread's work. Listed levels read the type's lookaside
// in the execution space's memory (its cached copy).
template <class ExecSpace, Direction Dir, int W>
void launch_shape(const ExecSpace& space, const std::string& label, const CommittedType& type, char* typed,
                  char* packed, std::int64_t begin, std::int64_t end) {
  using MemSpace = typename ExecSpace::memory_space;
  const std::int64_t* lookaside = type.shape.listed() ? descriptor<MemSpace>(type, space).lookaside.data() : nullptr;
  auto run = [&](auto kernel) {
    kernel.shape = type.shape;
    kernel.lookaside = lookaside;
    kernel.typed = typed;
    kernel.packed = packed;
    kernel.begin = begin;
    kernel.end = end;
    const std::string error = BackendTraits<ExecSpace>::launch_flat(space, label, kernel.items(), kernel);
    if (!error.empty()) throw_error(ErrorCode::Backend, label.c_str(), "launch", error);
  };
  if (shape_narrow(type.shape, end))
    run(ShapeInterleave<Dir, W, true>{});
  else
    run(ShapeInterleave<Dir, W, false>{});
}

}  // namespace KokkosDDT::Impl
