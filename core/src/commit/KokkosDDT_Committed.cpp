// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Committed.hpp"

#include <atomic>
#include <cstdint>
#include <list>
#include <string>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "KokkosDDT_Layout.hpp"
#include "KokkosDDT_Normalize.hpp"
#include "KokkosDDT_Serialize.hpp"
#include "KokkosDDT_TypeNode.hpp"

namespace KokkosDDT::Impl {

namespace {

// Device copies hold Kokkos allocations, which must go before Kokkos::finalize: a finalize hook empties the cache.
// Copies are shared by content (a type's nodes and lookaside, as bytes): the types of a plan made again over the same
// fields, or the same type committed by another process and received by a plan's handshake, find the copy that is
// already there instead of allocating and copying their own. A copy no live type uses stays (idle, the least recently
// used of kIdle dropped first), so that a plan re-made each time step uploads no descriptor.
struct DescriptorCache {
  struct Entry {
    std::map<std::type_index, std::shared_ptr<const void>> copies;
    int users = 0;                          // live types of this content that asked for a copy
    std::list<std::string>::iterator idle;  // (users == 0) its place in `idle`
  };
  std::mutex mutex;
  std::map<std::string, Entry> entries;             // by content
  std::map<std::uint64_t, std::string> content_of;  // CommittedType::id -> its content (types that asked)
  std::list<std::string> idle;                      // least recently used first
  bool hook_installed = false;
};
constexpr std::size_t kIdle = 256;

DescriptorCache& cache() {
  static DescriptorCache* c = new DescriptorCache;  // never destroyed: usable from any static destructor
  return *c;
}

std::atomic<std::uint64_t> next_id{1};
std::atomic<std::uint64_t> generation{1};

std::string content(const CommittedType& t) {
  std::string bytes(reinterpret_cast<const char*>(t.nodes.data()), t.nodes.size() * sizeof(DescriptorNode));
  bytes.append(reinterpret_cast<const char*>(t.lookaside.data()), t.lookaside.size() * sizeof(std::int64_t));
  bytes.append(std::to_string(t.nodes.size()));  // (where the nodes end)
  return bytes;
}

// The entry of type t's content, t counted among its users (under the lock).
DescriptorCache::Entry& entry_of(DescriptorCache& c, const CommittedType& t) {
  auto known = c.content_of.find(t.id);
  if (known != c.content_of.end()) return c.entries[known->second];
  const std::string key = content(t);
  auto [it, made] = c.entries.try_emplace(key);
  if (!made && it->second.users == 0) c.idle.erase(it->second.idle);
  ++it->second.users;
  c.content_of.emplace(t.id, key);
  return it->second;
}

}  // namespace

CommittedType::CommittedType() : id(next_id++) {}

CommittedType::~CommittedType() {
  DescriptorCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto known = c.content_of.find(id);
  if (known == c.content_of.end()) return;
  auto it = c.entries.find(known->second);
  c.content_of.erase(known);
  if (it == c.entries.end() || --it->second.users > 0) return;
  it->second.idle = c.idle.insert(c.idle.end(), it->first);
  while (c.idle.size() > kIdle) {
    c.entries.erase(c.idle.front());
    c.idle.pop_front();
  }
}

std::uint64_t descriptor_generation() { return generation.load(std::memory_order_acquire); }

std::shared_ptr<const void> find_descriptor(const CommittedType& type, std::type_index space) {
  DescriptorCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  DescriptorCache::Entry& e = entry_of(c, type);
  auto copy = e.copies.find(space);
  return copy == e.copies.end() ? nullptr : copy->second;
}

std::shared_ptr<const void> store_descriptor(const CommittedType& type, std::type_index space,
                                             std::shared_ptr<const void> d) {
  DescriptorCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (!c.hook_installed) {
    Kokkos::push_finalize_hook([] {
      DescriptorCache& c = cache();
      generation.fetch_add(1);  // every fast_descriptor goes stale with the cache
      std::lock_guard<std::mutex> lock(c.mutex);
      c.entries.clear();
      c.content_of.clear();
      c.idle.clear();
      c.hook_installed = false;
    });
    c.hook_installed = true;
  }
  return entry_of(c, type).copies.emplace(space, std::move(d)).first->second;  // the first copy made wins
}

namespace {

std::shared_ptr<const CommittedType> commit_anew(const TypeNode& type) {
  auto committed = std::make_shared<CommittedType>();
  LayoutPtr layout = lower(type);
  normalize(layout);
  committed->size = type.size;
  committed->extent = type.extent();
  const WordSizes words = word_sizes(*layout);
  committed->word_single = words.single;
  committed->word_repeated = words.repeated;
  if (type.size > 0) std::tie(committed->data_lb, committed->data_ub) = data_bounds(*layout);
  // The descriptor starts at the instance level, so one traversal serves any count.
  LayoutPtr many = instances_of(std::move(layout));
  normalize_top(many);
  SerializedType s = serialize(*many);
  committed->nodes = std::move(s.nodes);
  committed->lookaside = std::move(s.lookaside);
  committed->shape = shape_of(committed->nodes.data());
  return committed;
}

// Commits of equal descriptions share one committed type. A plan made again over the same fields (a halo re-made each
// run, as Cabana's is) builds the same hundred-odd region types anew, and lowering and normalizing them was most of
// its making (perf on the host: 52%). The memo knows a description by every argument of every constructor in its
// tree (and the sizes and bounds they give), so equal keys are equal types; it keeps the kMemo most recently used,
// and with them the device copies of those that were launched (DescriptorCache: a few KiB each, until the memo lets
// them go), and leaves out descriptions over kMemoKey words, whose keys would cost what their commit does.
using MemoKey = std::vector<std::int64_t>;
struct MemoHash {  // (a word at a time: byte-wise hashing of the keys was a tenth of a halo plan's making)
  // Four words at a time in four independent lanes, combined at the end: one lane's multiply waits for the one
  // before it, so a single lane ran at a word per multiply's latency (perf: 15% of a halo plan's making on the host).
  static std::uint64_t mix(std::uint64_t h, std::int64_t w) {
    h = (h ^ static_cast<std::uint64_t>(w)) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
  }
  static std::uint64_t rotate(std::uint64_t h, int by) { return h << by | h >> (64 - by); }
  std::size_t operator()(const MemoKey& k) const noexcept {
    std::uint64_t a = k.size(), b = 0x243F6A8885A308D3ull, c = 0x13198A2E03707344ull, d = 0xA4093822299F31D0ull;
    const std::size_t n = k.size(), whole = n / 4 * 4;
    for (std::size_t i = 0; i < whole; i += 4) {
      a = mix(a, k[i]);
      b = mix(b, k[i + 1]);
      c = mix(c, k[i + 2]);
      d = mix(d, k[i + 3]);
    }
    for (std::size_t i = whole; i < n; ++i) a = mix(a, k[i]);
    return static_cast<std::size_t>(
        mix(a ^ rotate(b, 17) ^ rotate(c, 31) ^ rotate(d, 47), static_cast<std::int64_t>(n)));
  }
};
struct CommitMemo {
  struct Entry {
    std::shared_ptr<const CommittedType> committed;
    std::list<const MemoKey*>::iterator used;  // its place in `order`
    // The committed children its key names by address (describe), kept so that no other type takes their address.
    std::vector<std::shared_ptr<const CommittedType>> children;
  };
  std::mutex mutex;
  std::unordered_map<MemoKey, Entry, MemoHash> entries;
  std::list<const MemoKey*> order;  // least recently used first (keys owned by `entries`)
};
constexpr std::size_t kMemo = 512, kMemoKey = 2048;  // (entries; a key's words)

CommitMemo& memo() {
  static CommitMemo* m = new CommitMemo;  // never destroyed: usable from any static destructor
  return *m;
}

// The description of `n` and its children (false once it passes kMemoKey words). A child already committed is named by
// its committed type instead (kCommittedChild, then its address; `children` keeps it): a committed type stands for one
// description (the memo's, or its node's alone), so the key stays exact, and a message's struct of committed regions
// (a halo scatter's pieces) costs a few words per region instead of each region's whole description.
constexpr std::int64_t kCommittedChild = -1;  // (never a description's first word: combiner, primitive and order >= 0)
bool describe(MemoKey& key, std::vector<std::shared_ptr<const CommittedType>>& children, const TypeNode& n, bool root) {
  if (!root && n.committed_fast.load(std::memory_order_acquire) != nullptr) {
    key.insert(key.end(),
               {kCommittedChild, static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(n.committed.get()))});
    children.push_back(n.committed);  // (set before committed_fast, never reset)
    return true;
  }
  key.insert(key.end(), {static_cast<std::int64_t>(n.combiner) | static_cast<std::int64_t>(n.primitive) << 8 |
                             static_cast<std::int64_t>(n.order) << 16,
                         n.count, n.blocklength, n.stride, n.resized_lb, n.resized_extent, n.size, n.lb, n.ub,
                         n.true_lb, n.true_ub, n.alignment, static_cast<std::int64_t>(n.children.size())});
  for (const auto* v : {&n.blocklengths, &n.displacements, &n.sizes, &n.subsizes, &n.starts}) {
    key.push_back(static_cast<std::int64_t>(v->size()));
    key.insert(key.end(), v->begin(), v->end());
  }
  if (key.size() > kMemoKey) return false;
  for (const auto& child : n.children)
    if (!describe(key, children, *child, false)) return false;
  return true;
}

}  // namespace

std::shared_ptr<const CommittedType> commit_type(const TypeNode& type) {
  MemoKey key;
  key.reserve(256);
  std::vector<std::shared_ptr<const CommittedType>> children;
  if (!describe(key, children, type, true)) return commit_anew(type);
  CommitMemo& m = memo();
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    auto found = m.entries.find(key);
    if (found != m.entries.end()) {
      m.order.splice(m.order.end(), m.order, found->second.used);
      return found->second.committed;
    }
  }
  std::shared_ptr<const CommittedType> committed = commit_anew(type);  // (outside the lock: commits run side by side)
  std::lock_guard<std::mutex> lock(m.mutex);
  auto [it, made] = m.entries.try_emplace(std::move(key), CommitMemo::Entry{committed, {}, std::move(children)});
  if (!made) return it->second.committed;  // (another thread's commit of the same description came first)
  it->second.used = m.order.insert(m.order.end(), &it->first);
  while (m.order.size() > kMemo) {
    m.entries.erase(m.entries.find(*m.order.front()));
    m.order.pop_front();
  }
  return committed;
}

std::string normalized_layout(const TypeNode& type) {
  LayoutPtr layout = lower(type);
  normalize(layout);
  return to_string(*layout);
}

}  // namespace KokkosDDT::Impl
