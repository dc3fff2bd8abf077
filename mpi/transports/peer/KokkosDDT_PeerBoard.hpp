// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A peer plan's departure board: host memory a process shares with the processes it is linked with (a POSIX
// shared-memory segment of its own per plan, opened by name during the handshake and unlinked once every process has
// it mapped), one word per linked peer. A process that gives the plan up (its destroy, its timeout) posts, in its word
// on every linked peer's board, how many steps it began, and only then ends the peers' device waits (terminal counter
// values, KokkosDDT_PeerLinks.hpp). A process whose waits ended so cannot tell that from its peer's writes on the
// device, but it reads its board at its next call: a step later than the peer's last was left incomplete, and fails.
// The post is a host store made before the terminal writes are enqueued, so it is visible to any process that saw them
// land (the host's stores are ordered before its doorbell to the GPU).

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace KokkosDDT::Impl {

class DepartureBoard {
 public:
  static constexpr std::int64_t kStaying = INT64_MAX;  // a word nobody posted in

  DepartureBoard() = default;
  DepartureBoard(const DepartureBoard&) = delete;
  DepartureBoard& operator=(const DepartureBoard&) = delete;
  ~DepartureBoard();

  // This process's board with `words` words (one per linked peer). Throws Error(Transport) naming `where`.
  void make(int words, const char* where);
  bool made() const { return words_ != nullptr; }
  std::int64_t token() const { return token_; }  // with this process's pid, the board's name
  void unlink();                                 // the name goes (every peer has the board mapped)
  // The steps posted in word `slot` (kStaying: none).
  std::int64_t read(int slot) const;

  // A peer's word in its board (pid, token, slot), mapped here until this object goes. False (nothing mapped) when the
  // board cannot be opened: the processes share no /dev/shm.
  bool open_peer(std::int64_t pid, std::int64_t token, int slot);
  // Posts `steps` in every peer word open_peer mapped (the first post stays).
  void post(std::int64_t steps);

 private:
  struct Mapping {
    void* at = nullptr;
    std::size_t bytes = 0;
  };
  std::atomic<std::int64_t>* words_ = nullptr;
  int count_ = 0;
  std::int64_t token_ = 0;
  std::string name_;
  Mapping own_;
  std::vector<Mapping> peers_;
  std::vector<std::atomic<std::int64_t>*> peer_words_;
};

}  // namespace KokkosDDT::Impl
