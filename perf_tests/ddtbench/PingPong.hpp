// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The seed's ping-pong (ddtbench12 Fig. 4-5) between ranks 0 and 1, per micro-app: see PingPong.cpp.
#include <string>

namespace ddtbench {

// Runs every micro-app's ping-pong on ranks 0 and 1 of MPI_COMM_WORLD (needs at least 2 ranks), prints the table on
// rank 0 and writes `csv` there. Returns the process exit code.
int pingpong(bool quick, const std::string& csv, double min_seconds);

}  // namespace ddtbench
