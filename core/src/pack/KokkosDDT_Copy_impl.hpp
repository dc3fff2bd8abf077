// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// CopyLaunch's definition (KokkosDDT_Copy.hpp): the typed-to-typed kernel of each word size, its descriptors carried
// in its parameters or read from the device, launched flat. Compiled once per backend in the library, and included
// by KokkosDDT_Copy.hpp only where some enabled backend is not (KOKKOSDDT_HEADER_DEFINITIONS).

#include <algorithm>
#include <cstdint>
#include <string>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Copy.hpp"
#include "KokkosDDT_CarriedDescriptor.hpp"
#include "KokkosDDT_SameShape.hpp"
#include "KokkosDDT_ShapeLaunch.hpp"
#include "KokkosDDT_TraversalArgs.hpp"
#include "KokkosDDT_TypedCopy.hpp"

namespace KokkosDDT::Impl {

template <class ExecSpace>
struct CopyWithWord {
  inline static const std::string label = "KokkosDDT::copy";
  const ExecSpace& space;
  const CopyTransfer& t;
  template <class W>
  void operator()(W) const {
    using MemSpace = typename ExecSpace::memory_space;
    std::int64_t delta = 0;
    const bool one_shape = same_shape(*t.src_type, *t.dst_type, delta);      // (then the source's descriptor, moved)
    if constexpr (!BackendTraits<ExecSpace>::walks_runs && W::value >= 4) {  // one canonical shape: its arithmetic
      if (one_shape && t.src_type->shape.kind != Shape::Kind::General)
        return launch_shape<ExecSpace, Direction::Copy, W::value>(space, label, *t.src_type, t.src,
                                                                  address_at(t.dst, delta), t.begin, t.end);
    }
    if constexpr (!BackendTraits<ExecSpace>::walks_runs && Config::carried_descriptor_bytes > 0) {
      // Devices: small descriptors ride in the kernel's parameters (as a flat pack's do) unless the launch is large
      // and its words narrow (carry_descriptor): no device copy to make or look up, and every thread reads them from
      // the constant bank.
      constexpr int bytes = Config::carried_descriptor_bytes;
      auto fits = [](const CommittedType& c) {
        return CarriedDescriptor<bytes>::fits(static_cast<std::int64_t>(c.nodes.size()),
                                              static_cast<std::int64_t>(c.lookaside.size()));
      };
      if (fits(*t.src_type) && (one_shape || fits(*t.dst_type)) &&
          carry_descriptor((t.end - t.begin) / W::value, W::value, BackendTraits<ExecSpace>::threads(space))) {
        TypedCopy<ExecSpace, W::value, false, bytes> kernel{
            {{}, {}, t.src}, {{}, {}, one_shape ? address_at(t.dst, delta) : t.dst}, t.begin, t.end, W::value,
            one_shape};
        auto carry = [&](CarriedDescriptor<bytes>& at, const CommittedType& c) {
          at.fill(c.nodes.data(), static_cast<std::int64_t>(c.nodes.size()), c.lookaside.data(),
                  static_cast<std::int64_t>(c.lookaside.size()));
        };
        carry(kernel.carried[0], *t.src_type);
        if (!one_shape) carry(kernel.carried[1], *t.dst_type);
        return launch(kernel, one_shape);
      }
    }
    const auto s = descriptor<MemSpace>(*t.src_type, space);
    const auto d = one_shape ? s : descriptor<MemSpace>(*t.dst_type, space);
    TypedCopy<ExecSpace, W::value, BackendTraits<ExecSpace>::walks_runs> kernel{
        {s.nodes, s.lookaside, t.src},
        {d.nodes, d.lookaside, one_shape ? address_at(t.dst, delta) : t.dst},
        t.begin,
        t.end,
        W::value,
        one_shape};
    launch(kernel, one_shape);
  }

  // Hosts walk tiles run by run, enough of them to balance the threads; devices take one word per thread, and where
  // one walk serves both sides it starts below the levels the whole range shares. Launched flat (on CUDA with <<<>>>
  // on the instance's stream): Kokkos' RangePolicy loop is a sizable share of a face copy's instructions per word.
  template <class Kernel>
  void launch(Kernel& kernel, bool one_shape) const {
    constexpr int W = Kernel::word;
    if constexpr (BackendTraits<ExecSpace>::walks_runs) {
      const std::int64_t threads = BackendTraits<ExecSpace>::threads(space);
      const std::int64_t tile = std::max<std::int64_t>(std::int64_t(64) << 10, (t.end - t.begin) / (4 * threads) + 1);
      kernel.tile = (tile + W - 1) / W * W;
    } else if (one_shape) {
      const SharedLevels l = shared_levels(t.src_type->nodes.data(), t.src_type->lookaside.data(), t.begin, t.end);
      kernel.src.start = l.start;
      kernel.src.typed = address_at(kernel.src.typed, l.disp);
      kernel.dst.typed = address_at(kernel.dst.typed, l.disp);
      kernel.begin -= l.at;
      kernel.end -= l.at;
    }
    const std::string error = BackendTraits<ExecSpace>::launch_flat(space, label, kernel.items(), kernel);
    if (!error.empty()) throw_error(ErrorCode::Backend, label.c_str(), "launch", error);
  }
};

template <class ExecSpace>
void CopyLaunch<ExecSpace>::launch(const ExecSpace& space, const CopyTransfer& t) {
  if (t.end > t.begin) with_word_size(t.word, CopyWithWord<ExecSpace>{space, t});
}

}  // namespace KokkosDDT::Impl
