// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A committed type as 64-bit words, for another process of the same build: the peer transport sends each receive's
// committed type to its sender, whose kernel then writes the receiver's cells itself. The words are the descriptor as
// it is (nodes and lookaside hold offsets, never addresses), so the receiver's type arrives exactly as it committed it.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "KokkosDDT_Committed.hpp"

namespace KokkosDDT::Impl {

std::vector<std::int64_t> committed_to_words(const CommittedType& type);

// The type the words describe (a new id: cached apart from the sender's types). Throws Error(InvalidArgument) naming
// `where` and "type" when the words are not a descriptor of this build (wrong length, version, or an index out of its
// arrays): a peer of another build, or a corrupted message.
std::shared_ptr<const CommittedType> committed_from_words(const std::int64_t* words, std::size_t count,
                                                          const char* where);

}  // namespace KokkosDDT::Impl
