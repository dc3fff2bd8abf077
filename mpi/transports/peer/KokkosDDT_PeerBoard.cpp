// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_PeerBoard.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <random>

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {
namespace {

std::string board_name(std::int64_t pid, std::int64_t token) {
  char name[64];
  std::snprintf(name, sizeof name, "/kokkosddt-%lld-%016llx", static_cast<long long>(pid),
                static_cast<unsigned long long>(token));
  return name;
}

std::size_t bytes_of(int words) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = sizeof(std::int64_t) * static_cast<std::size_t>(words > 0 ? words : 1);
  return (bytes + page - 1) / page * page;
}

}  // namespace

DepartureBoard::~DepartureBoard() {
  unlink();
  if (own_.at) munmap(own_.at, own_.bytes);
  for (const Mapping& m : peers_) munmap(m.at, m.bytes);
}

void DepartureBoard::make(int words, const char* where) {
  static_assert(std::atomic<std::int64_t>::is_always_lock_free, "a word shared between processes must be lock-free");
  std::random_device entropy;
  token_ = (static_cast<std::int64_t>(entropy()) << 32 | entropy()) & INT64_MAX;
  name_ = board_name(static_cast<std::int64_t>(getpid()), token_);
  const int fd = shm_open(name_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0)
    throw_error(ErrorCode::Transport, where, "transport",
                "shm_open of the peer plan's departure board failed: " + std::string(std::strerror(errno)));
  own_.bytes = bytes_of(words);
  void* at = ftruncate(fd, static_cast<off_t>(own_.bytes)) == 0
                 ? mmap(nullptr, own_.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                 : MAP_FAILED;
  const int error = errno;
  close(fd);
  if (at == MAP_FAILED) {
    shm_unlink(name_.c_str());
    name_.clear();
    throw_error(ErrorCode::Transport, where, "transport",
                "the peer plan's departure board could not be mapped: " + std::string(std::strerror(error)));
  }
  own_.at = at;
  words_ = static_cast<std::atomic<std::int64_t>*>(at);
  count_ = words;
  for (int i = 0; i < words; ++i) new (&words_[i]) std::atomic<std::int64_t>(kStaying);
}

void DepartureBoard::unlink() {
  if (!name_.empty()) shm_unlink(name_.c_str());
  name_.clear();
}

std::int64_t DepartureBoard::read(int slot) const {
  return words_ && slot >= 0 && slot < count_ ? words_[slot].load(std::memory_order_acquire) : kStaying;
}

bool DepartureBoard::open_peer(std::int64_t pid, std::int64_t token, int slot) {
  const int fd = shm_open(board_name(pid, token).c_str(), O_RDWR, 0);
  if (fd < 0) return false;
  const std::size_t bytes = bytes_of(slot + 1);
  void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (at == MAP_FAILED) return false;
  peers_.push_back({at, bytes});
  peer_words_.push_back(static_cast<std::atomic<std::int64_t>*>(at) + slot);
  return true;
}

void DepartureBoard::post(std::int64_t steps) {
  for (std::atomic<std::int64_t>* word : peer_words_) {
    std::int64_t staying = kStaying;
    word->compare_exchange_strong(staying, steps, std::memory_order_seq_cst);
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);  // (before the terminal writes the caller enqueues next)
}

}  // namespace KokkosDDT::Impl
