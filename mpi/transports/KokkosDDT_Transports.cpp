// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Transports.hpp"

#include <algorithm>
#include <cctype>

#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MpiTransport.hpp"
#if KOKKOSDDT_HAVE_NCCL
#include "KokkosDDT_NcclTransport.hpp"
#endif
#if KOKKOSDDT_HAVE_PEER
#include "KokkosDDT_PeerTransport.hpp"
#endif

namespace KokkosDDT::Impl {
namespace {

// The registry: one line per transport of the build (adding a transport adds its folder and its line here).
const std::vector<TransportEntry>& registry() {
  static const std::vector<TransportEntry> entries {
    mpi_transport_entry(),
#if KOKKOSDDT_HAVE_NCCL
        nccl_transport_entry(),
#endif
#if KOKKOSDDT_HAVE_PEER
        peer_transport_entry(),
#endif
  };
  return entries;
}

const TransportEntry* find(const mpi::TransportChoice& choice) {
  for (const TransportEntry& e : registry())
    if (choice.name() == e.name) return &e;
  return nullptr;
}

const TransportEntry& entry(const mpi::TransportChoice& choice, const char* where) {
  if (const TransportEntry* e = find(choice)) return *e;
  std::string names;
  for (const std::string& n : mpi::transports()) names += (names.empty() ? "" : ", ") + n;
  throw_error(ErrorCode::InvalidArgument, where, "transport",
              "is \"" + choice.name() + "\", which this build does not have (it has: " + names + ")");
}

}  // namespace

std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice, MPI_Comm comm, const char* where) {
  return entry(choice, where).make(choice, comm, where);
}

std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice, MPI_Comm comm, const char* where,
                                             const std::shared_ptr<Transport>& control) {
  const TransportEntry& e = entry(choice, where);
  if (control && e.make == mpi_transport_entry().make) return control;  // (MPI's: the duplicate itself)
  return e.make(choice, comm, where);
}

std::unique_ptr<Transport> user_transport(MPI_Comm comm) { return std::make_unique<MpiTransport>(comm); }

std::int64_t fingerprint(const mpi::TransportChoice& choice) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the name and whose communicator it is
  for (unsigned char c : choice.name() + (choice.users_own() ? "/user" : "")) h = (h ^ c) * 1099511628211ull;
  return static_cast<std::int64_t>(h);
}

}  // namespace KokkosDDT::Impl

namespace KokkosDDT::mpi {

TransportChoice::TransportChoice(std::string name) : name_(std::move(name)) {
  std::transform(name_.begin(), name_.end(), name_.begin(), [](unsigned char c) { return std::tolower(c); });
}

std::vector<std::string> transports() {
  std::vector<std::string> names;
  for (const Impl::TransportEntry& e : Impl::registry()) names.emplace_back(e.name);
  return names;
}

bool has_transport(const TransportChoice& choice) { return Impl::find(choice) != nullptr; }

Impl::TransportCapabilities capabilities(const TransportChoice& choice) {
  return Impl::entry(choice, "KokkosDDT::mpi::capabilities").capabilities;
}

void free_cached_communicators() {
  for (const Impl::TransportEntry& e : Impl::registry())
    if (e.free_cached) e.free_cached();
}

}  // namespace KokkosDDT::mpi
