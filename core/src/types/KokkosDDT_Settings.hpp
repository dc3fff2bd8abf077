// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Every KOKKOSDDT_* environment variable the library reads, in one place: read once per process, on first use,
// parsed and checked (docs/API.md, "Settings", is the table of names, defaults and effects). A value that does not
// parse throws Error(InvalidArgument) naming the variable, from the call that first needs the settings (a plan's,
// queue's or collective's construction) and from every later one: no setting is ever guessed. Options passed in code
// (a plan's timeout, a queue's threshold, a collective's schedule) win over these.

#include <array>
#include <cstdint>
#include <optional>

namespace KokkosDDT::Impl {

struct Settings {
  // Which name to look up: std::getenv in a process, a table in the tests.
  using Lookup = const char* (*)(const char*);

  // core
  double timeout_s = 0;                      // KOKKOSDDT_TIMEOUT_S: a plan's deadline where its options give none
  std::int64_t fusion_threshold_bytes = -1;  // KOKKOSDDT_FUSION_THRESHOLD_BYTES: a queue's threshold (-1: measure)

  // mpi
  int node_size = 0;           // KOKKOSDDT_NODE_SIZE: groups of this many ranks act as nodes (0: the real nodes)
  bool self_messages = false;  // KOKKOSDDT_HALO_SELF_MESSAGES: a process's messages to itself use the transport
  enum class Profile { Off, On, Trace };
  Profile profile_setup = Profile::Off;  // KOKKOSDDT_PROFILE_SETUP: where a plan's setup time goes, on stderr
  std::int64_t mpi_chunk_bytes = std::int64_t{1} << 30;  // KOKKOSDDT_MPI_CHUNK_BYTES: the largest count of one MPI call
  std::optional<bool> mpi_gpu_aware;  // KOKKOSDDT_MPI_GPU_AWARE: whether MPI reads device memory (unset: detected)

  // peer
  enum class DeviceBegin { Rule, Never, Rising, Always };
  DeviceBegin device_begin = DeviceBegin::Rule;  // KOKKOSDDT_DEVICE_BEGIN: where a step's begin runs in its kernel
  std::int64_t peer_idle_mappings = 64;          // KOKKOSDDT_PEER_IDLE_MAPPINGS: CUDA IPC mappings kept unused
  enum class Landing { Rule, Always, Never };
  Landing peer_landing = Landing::Rule;  // KOKKOSDDT_PEER_LANDING: receives packed into the receiver's memory

  // collectives
  std::optional<std::int64_t> collective_direct_bytes;  // KOKKOSDDT_COLLECTIVE_DIRECT_BYTES
  enum class Schedule { Auto, Tree, Linear };
  Schedule collective_schedule = Schedule::Auto;          // KOKKOSDDT_COLLECTIVE_SCHEDULE
  std::optional<std::array<double, 3>> collective_model;  // KOKKOSDDT_COLLECTIVE_MODEL: alpha_us, gap_us, beta_ns
  bool check_arguments = true;                            // KOKKOSDDT_CHECK_ARGUMENTS
  bool collective_blocking_reduction = true;              // KOKKOSDDT_COLLECTIVE_BLOCKING_REDUCTION

  // Every setting from `lookup`; throws Error(InvalidArgument) naming the first variable whose value does not parse.
  static Settings parse(Lookup lookup);
};

// This process's settings, from its environment on first use.
const Settings& settings();

}  // namespace KokkosDDT::Impl
