// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Transports.hpp"

#include <algorithm>
#include <cctype>

#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_TransportList.hpp"  // (generated: each built transport's header and entries, mpi/CMakeLists.txt)

namespace KokkosDDT::Impl {
namespace {

const std::vector<TransportEntry>& registry();

// The first transport of the build that routes (TransportEntry::make_routing), or null.
const TransportEntry* routing() {
  for (const TransportEntry& e : registry())
    if (e.make_routing) return &e;
  return nullptr;
}

// "auto" where a transport routes: that transport, its other messages on the best message transport.
TransportEntry auto_entry(const TransportEntry& routes) {
  TransportEntry e;
  e.name = "auto";
  e.capabilities = routes.capabilities;
  e.make = [](const mpi::TransportChoice&, const std::shared_ptr<MpiTransport>& control, const char* where) {
    return routing()->make_routing(control, &best_message_transport, where);
  };
  return e;
}

// The registry: the entries of the build's transports, in mpi/CMakeLists.txt's order (mpi first), then "auto" where
// one of them routes.
const std::vector<TransportEntry>& registry() {
  static const std::vector<TransportEntry> entries = [] {
    std::vector<TransportEntry> built{KOKKOSDDT_TRANSPORT_ENTRIES};
    const auto routes =
        std::find_if(built.begin(), built.end(), [](const TransportEntry& e) { return e.make_routing; });
    if (routes != built.end()) built.push_back(auto_entry(*routes));
    return built;
  }();
  return entries;
}

const TransportEntry* find(const std::string& name) {
  for (const TransportEntry& e : registry())
    if (name == e.name) return &e;
  return nullptr;
}

const TransportEntry& entry(const mpi::TransportChoice& choice, const char* where) {
  if (const TransportEntry* e = find(resolve(choice, true).name())) return *e;
  std::string names;
  for (const std::string& n : mpi::transports()) names += (names.empty() ? "" : ", ") + n;
  throw_error(ErrorCode::InvalidArgument, where, "transport",
              "is \"" + choice.name() + "\", which this build does not have (it has: " + names + ")");
}

}  // namespace

mpi::TransportChoice resolve(const mpi::TransportChoice& choice, bool device) {
  if (choice.name() != "auto") return choice;
  if (!device) return "mpi";
  if (routing()) return choice;               // (direct routes first: "auto" itself)
  for (const TransportEntry& e : registry())  // (else the first that carries device messages, else MPI)
    if (e.carries_device_messages) return e.name;
  return "mpi";
}

std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice,
                                             const std::shared_ptr<MpiTransport>& control, const char* where) {
  return entry(choice, where).make(choice, control, where);
}

std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice, MPI_Comm comm, const char* where) {
  const TransportEntry& e = entry(choice, where);  // (an unknown name throws before anything collective)
  return e.make(choice, MpiTransport::duplicate(comm, where), where);
}

std::shared_ptr<Transport> best_message_transport(bool needed, const std::shared_ptr<MpiTransport>& control,
                                                  const char* where) {
  if (needed)
    for (const TransportEntry& e : registry())  // (the same entries, in the same order, on every process)
      if (e.carries_device_messages && e.carries_device_messages(control, where)) return e.make(e.name, control, where);
  return control;
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
  if (!Impl::find("auto")) names.emplace_back("auto");  // (a choice in every build: resolve() says what it is)
  return names;
}

bool has_transport(const TransportChoice& choice) { return Impl::find(Impl::resolve(choice, true).name()) != nullptr; }

TransportCapabilities capabilities(const TransportChoice& choice) {
  return Impl::entry(choice, "KokkosDDT::mpi::capabilities").capabilities;
}

void free_cached_communicators() {
  for (const Impl::TransportEntry& e : Impl::registry())
    if (e.free_cached) e.free_cached();
}

}  // namespace KokkosDDT::mpi
