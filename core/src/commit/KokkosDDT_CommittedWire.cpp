// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_CommittedWire.hpp"

#include <cstring>
#include <string>

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {

namespace {

// magic, version, size, extent, data_lb, data_ub, word_single, word_repeated, nodes, lookaside entries
constexpr std::int64_t kMagic = 0x4b44445457697265;  // "KDDTWire"
constexpr std::int64_t kVersion = static_cast<std::int64_t>(sizeof(DescriptorNode)) << 8 | 1;
constexpr std::size_t kHeader = 10;
constexpr std::size_t kNodeWords = sizeof(DescriptorNode) / sizeof(std::int64_t);

}  // namespace

std::vector<std::int64_t> committed_to_words(const CommittedType& type) {
  std::vector<std::int64_t> w = {kMagic,
                                 kVersion,
                                 type.size,
                                 type.extent,
                                 type.data_lb,
                                 type.data_ub,
                                 type.word_single,
                                 type.word_repeated,
                                 static_cast<std::int64_t>(type.nodes.size()),
                                 static_cast<std::int64_t>(type.lookaside.size())};
  const std::size_t at = w.size();
  w.resize(at + type.nodes.size() * kNodeWords);
  if (!type.nodes.empty()) std::memcpy(w.data() + at, type.nodes.data(), type.nodes.size() * sizeof(DescriptorNode));
  w.insert(w.end(), type.lookaside.begin(), type.lookaside.end());
  return w;
}

std::shared_ptr<const CommittedType> committed_from_words(const std::int64_t* w, std::size_t count, const char* where) {
  auto bad = [&](const std::string& why) {
    throw_error(ErrorCode::InvalidArgument, where, "type", "arrived from a peer malformed: " + why);
  };
  if (count < kHeader || w[0] != kMagic) bad("not a committed type");
  if (w[1] != kVersion) bad("another build's descriptor format");
  const std::int64_t nodes = w[8], lookaside = w[9];
  if (nodes < 1 || lookaside < 0 ||
      count != kHeader + static_cast<std::size_t>(nodes) * kNodeWords + static_cast<std::size_t>(lookaside))
    bad("its length does not match its counts");
  auto word_ok = [](std::int64_t v) { return v == 1 || v == 2 || v == 4 || v == 8 || v == 16; };
  if (w[2] < 0 || w[4] > w[5] || !word_ok(w[6]) || !word_ok(w[7])) bad("its size, bounds or words are invalid");
  auto made = std::make_shared<CommittedType>();
  made->size = w[2];
  made->extent = w[3];
  made->data_lb = w[4];
  made->data_ub = w[5];
  made->word_single = static_cast<int>(w[6]);
  made->word_repeated = static_cast<int>(w[7]);
  made->nodes.resize(static_cast<std::size_t>(nodes));
  std::memcpy(static_cast<void*>(made->nodes.data()), w + kHeader, made->nodes.size() * sizeof(DescriptorNode));
  const std::int64_t* la = w + kHeader + made->nodes.size() * kNodeWords;
  made->lookaside.assign(la, la + lookaside);
  for (const DescriptorNode& n : made->nodes)  // (indices the traversal follows without checking)
    if (n.child < -1 || n.child >= nodes || n.lookaside < 0 || n.lookaside > lookaside || n.count < 0)
      bad("a node's child or lookaside index is out of range");
  made->shape = shape_of(made->nodes.data());
  return made;
}

}  // namespace KokkosDDT::Impl
