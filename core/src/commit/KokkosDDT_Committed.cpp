// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Committed.hpp"

#include <atomic>
#include <list>
#include <string>
#include <map>
#include <mutex>
#include <tuple>

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

std::shared_ptr<const CommittedType> commit_type(const TypeNode& type) {
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

std::string normalized_layout(const TypeNode& type) {
  LayoutPtr layout = lower(type);
  normalize(layout);
  return to_string(*layout);
}

}  // namespace KokkosDDT::Impl
