// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Committed.hpp"

#include <atomic>
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
struct DescriptorCache {
  std::mutex mutex;
  std::map<std::uint64_t, std::map<std::type_index, std::shared_ptr<const void>>> entries;
  bool hook_installed = false;
};

DescriptorCache& cache() {
  static DescriptorCache* c = new DescriptorCache;  // never destroyed: usable from any static destructor
  return *c;
}

std::atomic<std::uint64_t> next_id{1};
std::atomic<std::uint64_t> generation{1};

}  // namespace

CommittedType::CommittedType() : id(next_id++) {}

CommittedType::~CommittedType() {
  DescriptorCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.entries.erase(id);
}

std::uint64_t descriptor_generation() { return generation.load(std::memory_order_acquire); }

std::shared_ptr<const void> find_descriptor(std::uint64_t id, std::type_index space) {
  DescriptorCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.entries.find(id);
  if (it == c.entries.end()) return nullptr;
  auto entry = it->second.find(space);
  return entry == it->second.end() ? nullptr : entry->second;
}

std::shared_ptr<const void> store_descriptor(std::uint64_t id, std::type_index space, std::shared_ptr<const void> d) {
  DescriptorCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (!c.hook_installed) {
    Kokkos::push_finalize_hook([] {
      DescriptorCache& c = cache();
      generation.fetch_add(1);  // every fast_descriptor goes stale with the cache
      std::lock_guard<std::mutex> lock(c.mutex);
      c.entries.clear();
      c.hook_installed = false;
    });
    c.hook_installed = true;
  }
  return c.entries[id].emplace(space, std::move(d)).first->second;  // the first copy made wins
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
  return committed;
}

std::string normalized_layout(const TypeNode& type) {
  LayoutPtr layout = lower(type);
  normalize(layout);
  return to_string(*layout);
}

}  // namespace KokkosDDT::Impl
