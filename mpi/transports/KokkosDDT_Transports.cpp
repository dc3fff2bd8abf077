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

// Where "auto" sends the messages its peer routes do not carry (`needed`: some process has such messages; collective
// over control): NCCL where the build has it and every process has a GPU of its own (NCCL refuses two on one GPU),
// else MPI on the control plane itself.
[[maybe_unused]] std::shared_ptr<Transport> auto_messages(bool needed, const std::shared_ptr<MpiTransport>& control,
                                                          const char* where) {
#if KOKKOSDDT_HAVE_NCCL
  if (needed && nccl_one_gpu_each(control->comm(), where)) return nccl_transport(control->comm(), where);
#else
  (void)needed;
  (void)where;
#endif
  return control;
}

#if KOKKOSDDT_HAVE_PEER
// "auto" (CUDA builds): the peer transport's kernel writes the cells of every peer it reaches; auto_messages() carries
// the rest.
TransportEntry auto_transport_entry() {
  return {"auto", peer_transport_entry().capabilities,
          [](const mpi::TransportChoice&, const std::shared_ptr<MpiTransport>& control,
             const char* where) -> std::shared_ptr<Transport> {
            return std::make_shared<PeerTransport>(control, &auto_messages, where);
          }};
}
#endif

// The registry: one line per transport of the build (adding a transport adds its folder and its line here).
const std::vector<TransportEntry>& registry() {
  static const std::vector<TransportEntry> entries {
    mpi_transport_entry(),
#if KOKKOSDDT_HAVE_NCCL
        nccl_transport_entry(),
#endif
#if KOKKOSDDT_HAVE_PEER
        peer_transport_entry(), auto_transport_entry(),
#endif
  };
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
  if (find("auto")) return choice;  // (the build's routing transport)
  return find("nccl") ? "nccl" : "mpi";
}

std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice,
                                             const std::shared_ptr<MpiTransport>& control, const char* where) {
  return entry(choice, where).make(choice, control, where);
}

std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice, MPI_Comm comm, const char* where) {
  const TransportEntry& e = entry(choice, where);  // (an unknown name throws before anything collective)
  return e.make(choice, MpiTransport::duplicate(comm, where), where);
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

Impl::TransportCapabilities capabilities(const TransportChoice& choice) {
  return Impl::entry(choice, "KokkosDDT::mpi::capabilities").capabilities;
}

void free_cached_communicators() {
  for (const Impl::TransportEntry& e : Impl::registry())
    if (e.free_cached) e.free_cached();
}

}  // namespace KokkosDDT::mpi
