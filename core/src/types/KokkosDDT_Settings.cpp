// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Settings.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {
namespace {

constexpr const char* kWhere = "KokkosDDT settings (environment)";

// One variable's text: null when unset or empty (an empty value means unset, as in a shell's `X= cmd`).
struct Variable {
  const char* name;
  const char* text;
  explicit operator bool() const { return text != nullptr; }
  [[noreturn]] void refuse(const std::string& must) const {
    throw_error(ErrorCode::InvalidArgument, kWhere, name, std::string("is \"") + text + "\" but must be " + must);
  }
};

Variable read(Settings::Lookup lookup, const char* name) {
  const char* text = lookup(name);
  return {name, text && *text ? text : nullptr};
}

// A whole decimal integer in [low, high].
std::int64_t integer(const Variable& v, std::int64_t low, std::int64_t high, const std::string& must) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(v.text, &end, 10);
  if (end == v.text || *end != '\0' || errno == ERANGE || value < low || value > high) v.refuse(must);
  return value;
}

// A whole finite number >= 0, ending at `stop` (the end of the text, or a separator).
double number(const Variable& v, const char*& at, char stop, const std::string& must) {
  char* end = nullptr;
  const double value = std::strtod(at, &end);
  if (end == at || *end != stop || !std::isfinite(value) || value < 0) v.refuse(must);
  at = *end ? end + 1 : end;
  return value;
}

// One of `words`, each with its value.
template <class T>
T word(const Variable& v, std::initializer_list<std::pair<const char*, T>> words) {
  std::string must = "one of";
  for (const auto& [text, value] : words) {
    if (std::string(v.text) == text) return value;
    must += std::string(" \"") + text + "\"";
  }
  v.refuse(must);
}

bool flag(const Variable& v) { return word<bool>(v, {{"0", false}, {"1", true}}); }

}  // namespace

Settings Settings::parse(Lookup lookup) {
  Settings s;
  if (auto v = read(lookup, "KOKKOSDDT_TIMEOUT_S")) {
    const char* at = v.text;
    s.timeout_s = number(v, at, '\0', "a number of seconds >= 0 (0: no deadline)");
  }
  if (auto v = read(lookup, "KOKKOSDDT_FUSION_THRESHOLD_BYTES"))
    s.fusion_threshold_bytes = integer(v, 0, INT64_MAX, "a number of bytes >= 0");
  if (auto v = read(lookup, "KOKKOSDDT_NODE_SIZE")) s.node_size = integer(v, 0, 1 << 30, "a number of ranks >= 0");
  if (auto v = read(lookup, "KOKKOSDDT_HALO_SELF_MESSAGES")) s.self_messages = flag(v);
  if (auto v = read(lookup, "KOKKOSDDT_PROFILE_SETUP"))
    s.profile_setup = word<Profile>(v, {{"0", Profile::Off}, {"1", Profile::On}, {"trace", Profile::Trace}});
  if (auto v = read(lookup, "KOKKOSDDT_MPI_CHUNK_BYTES"))
    s.mpi_chunk_bytes = integer(v, 1, std::int64_t{1} << 30, "a number of bytes from 1 to 2^30");
  if (auto v = read(lookup, "KOKKOSDDT_MPI_GPU_AWARE")) s.mpi_gpu_aware = flag(v);
  if (auto v = read(lookup, "KOKKOSDDT_DEVICE_BEGIN"))
    s.device_begin =
        word<DeviceBegin>(v, {{"0", DeviceBegin::Never}, {"1", DeviceBegin::Rising}, {"always", DeviceBegin::Always}});
  if (auto v = read(lookup, "KOKKOSDDT_PEER_IDLE_MAPPINGS"))
    s.peer_idle_mappings = integer(v, 0, 1 << 20, "a number of mappings >= 0");
  if (auto v = read(lookup, "KOKKOSDDT_PEER_LANDING"))
    s.peer_landing = word<Landing>(v, {{"always", Landing::Always}, {"never", Landing::Never}});
  if (auto v = read(lookup, "KOKKOSDDT_COLLECTIVE_DIRECT_BYTES"))
    s.collective_direct_bytes = integer(v, 0, INT64_MAX, "a number of bytes >= 0");
  if (auto v = read(lookup, "KOKKOSDDT_COLLECTIVE_SCHEDULE"))
    s.collective_schedule =
        word<Schedule>(v, {{"auto", Schedule::Auto}, {"tree", Schedule::Tree}, {"linear", Schedule::Linear}});
  if (auto v = read(lookup, "KOKKOSDDT_COLLECTIVE_MODEL")) {
    const std::string must = "three numbers >= 0, \"alpha_us,gap_us,beta_ns\"";
    const char* at = v.text;
    std::array<double, 3> m{};
    m[0] = number(v, at, ',', must);
    m[1] = number(v, at, ',', must);
    m[2] = number(v, at, '\0', must);
    s.collective_model = m;
  }
  if (auto v = read(lookup, "KOKKOSDDT_CHECK_ARGUMENTS")) s.check_arguments = flag(v);
  if (auto v = read(lookup, "KOKKOSDDT_COLLECTIVE_BLOCKING_REDUCTION")) s.collective_blocking_reduction = flag(v);
  return s;
}

const Settings& settings() {
  // (A throw leaves the static unset: every later call parses again and throws the same error.)
  static const Settings s = Settings::parse([](const char* name) -> const char* { return std::getenv(name); });
  return s;
}

}  // namespace KokkosDDT::Impl
