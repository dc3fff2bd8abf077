// SPDX-License-Identifier: BSD-3-Clause
// Preloaded into the multi-rank tests (LD_PRELOAD, see the top CMakeLists.txt): while the ranks on a machine reach its
// cores, a rank whose MPI progress engine finds nothing to do sleeps briefly instead of spinning.
//
// Why: MPICH's ch4 device (Debian's ch4:ucx) waits by polling UCX without ever giving up its core. With more ranks
// than cores, the rank being waited for gets a core only when the scheduler takes it from a spinning one, every few
// milliseconds. On a 2-vCPU VM (2026-11-28,
// perf_tests/results/ci-oversubscribed-2026-11-28/ci-oversubscribed-2026-11-28.md) the 3-rank collectives tests took
// 272 s without this wrapper and 11-12 s with it; at 8 ranks one test case took 348 s with a yield here instead of a
// sleep, 31 s with the sleep. The library's own waits already yield; this is the MPI library's side, for tests only (as
// UPC++'s UPCXX_OVERSUBSCRIBED is for its progress loop).
//
// It wraps ucp_worker_progress, the call MPICH's ch4:ucx (and Open MPI's UCX layer) polls, and is inert where nothing
// calls it. It sleeps only when oversubscribed: the launcher's count of ranks on this node (MPICH's MPI_LOCALNRANKS,
// Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE) times OMP_NUM_THREADS reaches the cores online (reaches: ctest runs tests
// side by side). KOKKOSDDT_TEST_OVERSUBSCRIBED=1 or 0 overrides that.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

namespace {

long env_count(const char* name) {
  const char* value = std::getenv(name);
  const long n = value ? std::strtol(value, nullptr, 10) : 0;
  return n > 0 ? n : 0;
}

bool oversubscribed() {
  if (const char* forced = std::getenv("KOKKOSDDT_TEST_OVERSUBSCRIBED")) return forced[0] == '1';
  long ranks = env_count("MPI_LOCALNRANKS");
  if (ranks == 0) ranks = env_count("OMPI_COMM_WORLD_LOCAL_SIZE");
  const long threads = env_count("OMP_NUM_THREADS");
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return ranks * (threads > 0 ? threads : 1) >= cores;
}

using Progress = unsigned (*)(void*);

// Polls that found nothing before the rank sleeps: a message already on its way completes within them, without the
// ~60 us a sleep costs (20 us asked, plus the kernel's timer slack).
constexpr unsigned kIdlePolls = 64;
constexpr long kSleepNs = 20000;

}  // namespace

extern "C" unsigned ucp_worker_progress(void* worker) {
  static const auto real = reinterpret_cast<Progress>(dlsym(RTLD_NEXT, "ucp_worker_progress"));
  static const bool sleep_when_idle = oversubscribed();
  thread_local unsigned idle = 0;
  const unsigned events = real(worker);
  if (events != 0) {
    idle = 0;
  } else if (sleep_when_idle && ++idle >= kIdlePolls) {
    const timespec pause{0, kSleepNs};
    nanosleep(&pause, nullptr);
  }
  return events;
}
