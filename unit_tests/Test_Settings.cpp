// SPDX-License-Identifier: BSD-3-Clause
// The settings (KokkosDDT_Settings.hpp): every KOKKOSDDT_* variable parsed from a table instead of the environment,
// its default when unset or empty, its accepted values, and a named InvalidArgument for anything else.
#include "support/Catch.hpp"

#include <KokkosDDT.hpp>
#include <KokkosDDT_Settings.hpp>
#include <map>
#include <string>

using KokkosDDT::Impl::Settings;

namespace {

std::map<std::string, std::string> table;  // what the lookup sees

const char* lookup(const char* name) {
  const auto at = table.find(name);
  return at == table.end() ? nullptr : at->second.c_str();
}

Settings with(const std::string& name, const std::string& value) {
  table = {{name, value}};
  return Settings::parse(lookup);
}

// Parsing `value` for `name` throws InvalidArgument naming `name`.
void refused(const std::string& name, const std::string& value) {
  INFO(name << "=\"" << value << "\"");
  table = {{name, value}};
  try {
    (void)Settings::parse(lookup);
    FAIL("accepted");
  } catch (const KokkosDDT::Error& e) {
    CHECK(e.code() == KokkosDDT::ErrorCode::InvalidArgument);
    CHECK(e.argument() == name);
    CHECK(std::string(e.what()).find(value) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("settings: defaults when nothing is set, and an empty value is unset", "[settings]") {
  table.clear();
  const Settings s = Settings::parse(lookup);
  CHECK(s.timeout_s == 0);
  CHECK(s.fusion_threshold_bytes == -1);
  CHECK(s.node_size == 0);
  CHECK_FALSE(s.self_messages);
  CHECK(s.profile_setup == Settings::Profile::Off);
  CHECK(s.mpi_chunk_bytes == (std::int64_t{1} << 30));
  CHECK_FALSE(s.mpi_gpu_aware.has_value());
  CHECK(s.device_begin == Settings::DeviceBegin::Rule);
  CHECK(s.peer_idle_mappings == 64);
  CHECK(s.peer_landing == Settings::Landing::Rule);
  CHECK_FALSE(s.collective_direct_bytes.has_value());
  CHECK(s.collective_schedule == Settings::Schedule::Auto);
  CHECK_FALSE(s.collective_model.has_value());
  CHECK(s.check_arguments);
  CHECK(s.collective_blocking_reduction);
  CHECK(with("KOKKOSDDT_TIMEOUT_S", "").timeout_s == 0);
}

TEST_CASE("settings: accepted values", "[settings]") {
  CHECK(with("KOKKOSDDT_TIMEOUT_S", "2.5").timeout_s == 2.5);
  CHECK(with("KOKKOSDDT_FUSION_THRESHOLD_BYTES", "123456").fusion_threshold_bytes == 123456);
  CHECK(with("KOKKOSDDT_NODE_SIZE", "2").node_size == 2);
  CHECK(with("KOKKOSDDT_HALO_SELF_MESSAGES", "1").self_messages);
  CHECK(with("KOKKOSDDT_PROFILE_SETUP", "trace").profile_setup == Settings::Profile::Trace);
  CHECK(with("KOKKOSDDT_PROFILE_SETUP", "1").profile_setup == Settings::Profile::On);
  CHECK(with("KOKKOSDDT_MPI_CHUNK_BYTES", "8").mpi_chunk_bytes == 8);
  CHECK(with("KOKKOSDDT_MPI_GPU_AWARE", "0").mpi_gpu_aware == false);
  CHECK(with("KOKKOSDDT_DEVICE_BEGIN", "always").device_begin == Settings::DeviceBegin::Always);
  CHECK(with("KOKKOSDDT_DEVICE_BEGIN", "0").device_begin == Settings::DeviceBegin::Never);
  CHECK(with("KOKKOSDDT_PEER_IDLE_MAPPINGS", "0").peer_idle_mappings == 0);
  CHECK(with("KOKKOSDDT_PEER_LANDING", "never").peer_landing == Settings::Landing::Never);
  CHECK(with("KOKKOSDDT_COLLECTIVE_DIRECT_BYTES", "0").collective_direct_bytes == 0);
  CHECK(with("KOKKOSDDT_COLLECTIVE_SCHEDULE", "linear").collective_schedule == Settings::Schedule::Linear);
  const Settings m = with("KOKKOSDDT_COLLECTIVE_MODEL", "1.5,0.25,0.1");
  REQUIRE(m.collective_model.has_value());
  CHECK((*m.collective_model)[0] == 1.5);
  CHECK((*m.collective_model)[1] == 0.25);
  CHECK((*m.collective_model)[2] == 0.1);
  CHECK_FALSE(with("KOKKOSDDT_CHECK_ARGUMENTS", "0").check_arguments);
  CHECK_FALSE(with("KOKKOSDDT_COLLECTIVE_BLOCKING_REDUCTION", "0").collective_blocking_reduction);
}

TEST_CASE("settings: a value that does not parse is an error naming the variable", "[settings][errors]") {
  refused("KOKKOSDDT_TIMEOUT_S", "5s");
  refused("KOKKOSDDT_TIMEOUT_S", "-1");
  refused("KOKKOSDDT_TIMEOUT_S", "inf");
  refused("KOKKOSDDT_FUSION_THRESHOLD_BYTES", "12 kB");
  refused("KOKKOSDDT_FUSION_THRESHOLD_BYTES", "-5");
  refused("KOKKOSDDT_FUSION_THRESHOLD_BYTES", "99999999999999999999");
  refused("KOKKOSDDT_NODE_SIZE", "two");
  refused("KOKKOSDDT_HALO_SELF_MESSAGES", "yes");
  refused("KOKKOSDDT_PROFILE_SETUP", "false");
  refused("KOKKOSDDT_MPI_CHUNK_BYTES", "0");
  refused("KOKKOSDDT_MPI_CHUNK_BYTES", "2147483648");
  refused("KOKKOSDDT_MPI_GPU_AWARE", "no");
  refused("KOKKOSDDT_DEVICE_BEGIN", "sometimes");
  refused("KOKKOSDDT_PEER_IDLE_MAPPINGS", "lots");
  refused("KOKKOSDDT_PEER_LANDING", "Always");
  refused("KOKKOSDDT_COLLECTIVE_DIRECT_BYTES", "abc");
  refused("KOKKOSDDT_COLLECTIVE_SCHEDULE", "Tree");
  refused("KOKKOSDDT_COLLECTIVE_MODEL", "1,2");
  refused("KOKKOSDDT_COLLECTIVE_MODEL", "1,2,3,4");
  refused("KOKKOSDDT_COLLECTIVE_MODEL", "-1,2,3");
  refused("KOKKOSDDT_CHECK_ARGUMENTS", "off");
  refused("KOKKOSDDT_COLLECTIVE_BLOCKING_REDUCTION", "2");
}

TEST_CASE("settings: this process's come from its environment, once", "[settings]") {
  const Settings& a = KokkosDDT::Impl::settings();
  CHECK(&a == &KokkosDDT::Impl::settings());
}
