// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whether a peer process of this node is still there. A peer route's neighbour writes counters this process's stream
// waits on; if that process dies, the waits are never met and only the deadline would end them. Its pid, sent in the
// handshake, tells sooner: a pid that names no process (or a zombie) is a process that ended. A pid means the same
// process on both sides only within one pid namespace (containers on one node may have their own), so the handshake
// also sends the namespace's id and a pid from another namespace is never checked.

#include <sys/stat.h>
#include <sys/types.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <string>

namespace KokkosDDT::Impl {

// This process's pid namespace (the inode of /proc/self/ns/pid; 0: unknown, then no pid is checked).
inline std::int64_t pid_namespace() {
  struct stat s {};
  if (stat("/proc/self/ns/pid", &s) != 0) return 0;
  return static_cast<std::int64_t>(s.st_ino);
}

// Whether the process `pid` of this pid namespace has ended: no such process, or one that exited and awaits its
// parent (a zombie: the launcher has not reaped it yet). Unknown (a permission error, no /proc): false.
inline bool process_ended(std::int64_t pid) {
  if (pid <= 0) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const std::size_t close = line.rfind(')');  // (the command name, in parentheses, may hold spaces)
  if (close == std::string::npos || close + 2 >= line.size()) return false;
  const char state = line[close + 2];
  return state == 'Z' || state == 'X';
}

}  // namespace KokkosDDT::Impl
