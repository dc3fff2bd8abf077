// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_PeerTransport.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "KokkosDDT_CommittedWire.hpp"
#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_Descriptor.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MPIAgreement.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_PeerCuda.hpp"
#include "KokkosDDT_PeerHandshake.hpp"
#include "KokkosDDT_PeerLinks.hpp"
#include "KokkosDDT_PeerLiveness.hpp"
#include "KokkosDDT_PeerMemory.hpp"
#include "KokkosDDT_PeerRefusal.hpp"
#include "KokkosDDT_SetupClock.hpp"
#include "KokkosDDT_Settings.hpp"
#include "KokkosDDT_SetupDeadline.hpp"

namespace KokkosDDT::Impl {

namespace {

// ---------------------------------------------------------------------------------------------------- this device
struct Device {
  int ordinal = 0;
  std::int64_t uuid[2] = {0, 0};
  bool memops = false;  // 64-bit stream wait/write (the step's counters)
  bool flush = false;   // waits may flush remote writes
};

// A device's facts, queried once per process: cudaGetDeviceProperties fills every field of a device's properties for
// the one (the uuid) a handshake needs, and every plan's handshake asked for this device's and, on another GPU, its
// peers'.
struct DeviceFacts {
  std::mutex mutex;
  std::map<int, Device> devices;                   // by ordinal
  std::vector<std::array<std::int64_t, 2>> uuids;  // every visible device's, by ordinal (read once)
};
DeviceFacts& device_facts() {
  static DeviceFacts* facts = new DeviceFacts;  // (never destroyed: plans may end after static destruction begins)
  return *facts;
}

Device this_device(const char* where) {
  int ordinal = 0;
  cuda_check(cudaGetDevice(&ordinal), where, "cudaGetDevice");
  DeviceFacts& facts = device_facts();
  std::lock_guard<std::mutex> lock(facts.mutex);
  if (auto known = facts.devices.find(ordinal); known != facts.devices.end()) return known->second;
  Device d;
  d.ordinal = ordinal;
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, d.ordinal), where, "cudaGetDeviceProperties");
  std::memcpy(d.uuid, &prop.uuid, sizeof d.uuid);
  CUdevice dev = 0;
  int memops = 0, flush = 0;
  if (cuDeviceGet(&dev, d.ordinal) == CUDA_SUCCESS) {
    (void)cuDeviceGetAttribute(&memops, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev);
    (void)cuDeviceGetAttribute(&flush, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, dev);
  }
  d.memops = memops != 0;
  d.flush = flush != 0;
  return facts.devices.emplace(ordinal, d).first->second;
}

// Whether this process's GPU writes the GPU with `uuid` (the same one, or a peer).
bool reaches(const Device& me, const std::int64_t* uuid) {
  if (uuid[0] == me.uuid[0] && uuid[1] == me.uuid[1]) return true;
  DeviceFacts& facts = device_facts();
  std::unique_lock<std::mutex> lock(facts.mutex);
  if (facts.uuids.empty()) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    facts.uuids.assign(static_cast<std::size_t>(n), {0, 0});
    for (int i = 0; i < n; ++i) {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, i) == cudaSuccess) std::memcpy(facts.uuids[i].data(), &prop.uuid, 16);
    }
    (void)cudaGetLastError();
  }
  for (std::size_t i = 0; i < facts.uuids.size(); ++i) {
    if (facts.uuids[i][0] != uuid[0] || facts.uuids[i][1] != uuid[1]) continue;
    lock.unlock();
    int can = 0;  // (a topology query: cheap)
    return cudaDeviceCanAccessPeer(&can, me.ordinal, static_cast<int>(i)) == cudaSuccess && can;
  }
  return false;  // (not visible to this process)
}

// Bytes [lo, hi) that `count` instances of a type touch at `buf` (null: absolute addresses).
std::pair<char*, char*> span(const CommittedMessage& e) {
  const std::int64_t last = (e.count - 1) * e.type->extent;
  const std::int64_t lo = std::min<std::int64_t>(e.type->data_lb, last + e.type->data_lb);
  const std::int64_t hi = std::max<std::int64_t>(e.type->data_ub, last + e.type->data_ub);
  const auto at = reinterpret_cast<std::uintptr_t>(e.buf);
  return {reinterpret_cast<char*>(at + static_cast<std::uintptr_t>(lo)),
          reinterpret_cast<char*>(at + static_cast<std::uintptr_t>(hi))};
}

// ---------------------------------------------------------------------------------------------------- landing
// The rule for cells in short runs. A remote store writes one run: a receive of many isolated cells (a face of 8-byte
// cells a row apart) costs one small NVLink write per cell when the sender writes it typed. Landed instead, the sender
// packs it into a buffer of the receiver's in whole coalesced lines and the receiver unpacks it from its own memory, at
// the price of one more launch there, which outweighs the saved stores unless the runs are both short and many: so a
// receive is landed when its shortest run is under kShortRun bytes and it holds at least kManyRuns runs.
// KOKKOSDDT_PEER_LANDING=always|never overrides the rule (tests use "always" to run the landed path on small fields).
constexpr std::int64_t kShortRun = 64;
constexpr std::int64_t kManyRuns = 32768;

using Landing = Settings::Landing;
Landing landing_mode() { return settings().peer_landing; }

// The shortest run of contiguous bytes one instance of `t` holds: over its terminal nodes, a Contig node's bytes, a
// block's (Strided, IndexedBlock) or a mean block's (Indexed), a terminal field's (Struct).
std::int64_t shortest_run(const CommittedType& t) {
  std::int64_t shortest = t.size;
  for (const DescriptorNode& n : t.nodes) {
    if (n.count <= 0 || n.size <= 0) continue;
    if (n.kind == LayoutKind::Struct) {
      const std::int64_t* prefix = Lookaside::prefix(&n, t.lookaside.data());
      const std::int64_t* children = Lookaside::children(&n, t.lookaside.data());
      for (std::int64_t b = 0; b < n.count; ++b)
        if (children[b] < 0 && prefix[b + 1] > prefix[b]) shortest = std::min(shortest, prefix[b + 1] - prefix[b]);
    } else if (n.child < 0) {
      shortest = std::min(shortest, n.kind == LayoutKind::Contig ? n.size : n.size / n.count);
    }
  }
  return std::max<std::int64_t>(shortest, 1);
}

// Whether the rule above lands receive `r`.
bool landed_by_rule(const CommittedMessage& r) {
  if (landing_mode() != Landing::Rule) return landing_mode() == Landing::Always;
  const std::int64_t run = shortest_run(*r.type);
  return run < kShortRun && r.count * r.type->size / run >= kManyRuns;
}

// A send the handshake routed direct: write `count` of `type` at `origin` (the receiver's cells, mapped here); landed:
// pack the send's bytes at `origin` (type null).
struct DirectRoute {
  bool direct = false;
  bool landed = false;
  const char* why = "";  // why a send to another process did not go direct (KokkosDDT_PeerRefusal.hpp), "" if it did
  char* origin = nullptr;
  std::int64_t count = 0;
  std::shared_ptr<const CommittedType> type;
  int gate = -1;  // its receiver's place among the links' downstream peers
};

// A receive routed direct; landed: its bytes arrive packed at `landing` (this process's memory, the transport's own).
struct DirectReceive {
  bool direct = false;
  const char* why = "";
  char* landing = nullptr;
};

// ---------------------------------------------------------------------------------------------------- handshake
// One plan's handshake (KokkosDDT_PeerHandshake.hpp), a phase per call: allocate, offer, answer, take the answers,
// finish. A failure on this process is kept (`failure`) and the handshake goes on, so that its peers are answered
// and nobody waits; route() then fails the plan on every process. Each wait for a peer's message takes at most the
// setup's deadline (KokkosDDT_SetupDeadline.hpp), then throws Timeout: the links made so far are destroyed within the
// deadline, and the messages still in flight keep their buffers (never freed).
class Handshake {
 public:
  Handshake(const std::vector<CommittedMessage>& sends, const std::vector<CommittedMessage>& receives,
            const std::shared_ptr<MpiTransport>& control, std::int64_t node, bool replayable, const char* where)
      : sends_(sends),
        receives_(receives),
        comm_(control->comm()),
        me_(control->rank()),
        node_(node),
        pid_(static_cast<std::int64_t>(getpid())),
        pid_namespace_(pid_namespace()),
        dev_(this_device(where)),
        where_(where),
        links(std::make_unique<PeerLinks>(control, dev_.flush, replayable)),
        routes(sends.size()),
        direct_receives(receives.size()),
        landed_at_(receives.size(), -1) {}
  ~Handshake() {
    if (links) links->leave_within(SetupDeadline::seconds());  // (a failed setup: the others may never come)
    if (!sent_ && !out_.empty())
      (void)new std::vector<std::vector<std::int64_t>>(std::move(out_));  // (MPI may read them)
  }
  Handshake(const Handshake&) = delete;
  Handshake& operator=(const Handshake&) = delete;

  // This process's counters (one per peer that may write its cells, its "written"; then one per peer whose cells it
  // may write, its "free"), and the landed receives' buffer (a 256-byte-aligned slice each).
  void allocate() {
    std::int64_t slots = 0;
    for (const CommittedMessage& r : receives_)
      if (written_.emplace(r.peer, 8 * slots).second) ++slots;
    for (const CommittedMessage& s : sends_)
      if (free_.emplace(s.peer, 8 * slots).second) ++slots;
    if (slots == 0 || !dev_.memops) return;
    for (const auto* ends : {&sends_, &receives_})
      for (const CommittedMessage& e : *ends)
        if (e.peer != me_) links->board_peers.push_back(e.peer);
    std::sort(links->board_peers.begin(), links->board_peers.end());
    links->board_peers.erase(std::unique(links->board_peers.begin(), links->board_peers.end()),
                             links->board_peers.end());
    try {
      links->counters = take_counters(slots, where_);
      links->board.make(static_cast<int>(links->board_peers.size()), where_);
      counters_ = true;
    } catch (const Error& e) {
      failure = e.what();
      return;
    }
    std::int64_t bytes = 0;
    for (std::size_t j = 0; j < receives_.size(); ++j) {
      const CommittedMessage& r = receives_[j];
      // (a combining receive is always landed: the sender must not write cells the receiver combines into; the cells
      // may span allocations, fields of one message: this process's kernel unpacks them)
      if (r.peer == me_ || !(r.combines || landed_by_rule(r))) continue;
      const auto [lo, hi] = span(r);
      if (!device_range(dev_.ordinal, lo, hi)) continue;
      landed_at_[j] = bytes;
      bytes += (r.count * r.type->size + 255) / 256 * 256;
    }
    if (bytes == 0) return;
    try {
      links->landing = take_landing(bytes, where_);
    } catch (const Error& e) {
      failure = e.what();
      landed_at_.assign(receives_.size(), -1);
    }
  }

  // 1. Each receive's Offer to its sender (the committed type after it, for typed cells).
  void offer() {
    for (std::size_t j = 0; j < receives_.size(); ++j) {
      const CommittedMessage& r = receives_[j];
      Offer o;
      o.node = node_;
      o.pid = pid_;
      o.pid_namespace = pid_namespace_;
      std::memcpy(o.gpu, dev_.uuid, sizeof o.gpu);
      o.counters = counters_;
      char* base = nullptr;
      if (landed_at_[j] >= 0) {
        o.exported = o.landed = 1;
        o.cells = links->landing.handle;
        base = links->landing.base;
        o.origin = landed_at_[j];
        o.count = r.count * r.type->size;
      } else {
        // (a combining receive without a landing buffer travels as a message: no sender writes its cells)
        o.exported = counters_ && r.peer != me_ && !r.combines && exported(r, &o.cells, &base);
        o.origin =
            static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(r.buf) - reinterpret_cast<std::uintptr_t>(base));
        o.count = r.count;
      }
      o.cells_base = reinterpret_cast<std::int64_t>(base);
      if (counters_) {
        o.counter_block = links->counters.handle;
        o.counter_base = reinterpret_cast<std::int64_t>(links->counters.base);
        o.written = links->counters.offset + written_[r.peer];
        o.board = links->board.token();
        o.slot = slot_of(r.peer);
      }
      std::vector<std::int64_t> words = to_words(o);
      if (o.exported && !o.landed) {
        const std::vector<std::int64_t> type = committed_to_words(*r.type);
        words.insert(words.end(), type.begin(), type.end());
      }
      post(std::move(words), r.peer, r.tag, "MPI_Isend (peer offer)");
    }
  }

  // 2. Each send takes its receiver's Offer, decides, maps what it writes, and answers.
  void answer() {
    for (std::size_t i = 0; i < sends_.size(); ++i) {
      const CommittedMessage& s = sends_[i];
      MPI_Status status;
      setup_probe(s.peer, s.tag, comm_, &status, where_, "MPI_Probe (peer offer)");
      int n = 0;
      mpi_check(MPI_Get_count(&status, MPI_INT64_T, &n), where_, "MPI_Get_count (peer offer)");
      std::vector<std::int64_t> words(static_cast<std::size_t>(n));
      mpi_check(MPI_Recv(words.data(), n, MPI_INT64_T, s.peer, s.tag, comm_, MPI_STATUS_IGNORE), where_,
                "MPI_Recv (peer offer)");
      const Offer o = from_words<Offer>(words);
      const PeerFacts sender{node_, pid_, counters_, false};
      const PeerFacts receiver{o.node, o.pid, o.counters != 0, o.exported != 0};
      const bool near = sender.node == receiver.node && sender.pid != receiver.pid;
      PeerRefusal refusal = peer_refusal(sender, receiver, near && reaches(dev_, o.gpu));
      if (refusal == PeerRefusal::None && !failure.empty()) refusal = PeerRefusal::Failed;
      if (refusal == PeerRefusal::None && !open_board(s.peer, o.pid, o.board, o.slot)) refusal = PeerRefusal::NoBoard;
      if (refusal == PeerRefusal::None) {
        try {
          if (!go_direct(i, o, words)) {
            routes[i] = DirectRoute{};
            refusal = PeerRefusal::Mapped;
          }
        } catch (const Error& e) {
          routes[i] = DirectRoute{};
          refusal = PeerRefusal::Failed;
          failure = e.what();
        }
      }
      routes[i].why = why(refusal);
      Answer a;
      a.refusal = static_cast<std::int64_t>(refusal);
      a.node = node_;
      a.pid = pid_;
      a.pid_namespace = pid_namespace_;
      a.counter_block = links->counters.handle;
      a.counter_base = reinterpret_cast<std::int64_t>(links->counters.base);
      a.free = links->counters.offset + free_[s.peer];
      a.board = links->board.token();
      a.slot = slot_of(s.peer);
      post(to_words(a), s.peer, s.tag, "MPI_Isend (peer answer)");
    }
  }

  // 3. Each receive learns its sender's Answer; a direct one maps the sender's counters ("free").
  void take_answers() {
    for (std::size_t j = 0; j < receives_.size(); ++j) {
      const CommittedMessage& r = receives_[j];
      std::vector<std::int64_t> words(words_of<Answer>());
      MPI_Status status;
      setup_probe(r.peer, r.tag, comm_, &status, where_, "MPI_Probe (peer answer)");
      mpi_check(MPI_Recv(words.data(), words_of<Answer>(), MPI_INT64_T, r.peer, r.tag, comm_, MPI_STATUS_IGNORE),
                where_, "MPI_Recv (peer answer)");
      const Answer a = from_words<Answer>(words);
      DirectReceive& d = direct_receives[j];
      d.direct = a.refusal == static_cast<std::int64_t>(PeerRefusal::None);
      d.why = why(static_cast<PeerRefusal>(a.refusal));
      if (d.direct && landed_at_[j] >= 0) d.landing = links->landing.base + landed_at_[j];
      if (!d.direct || !upstream_.insert(r.peer).second) continue;
      if (!open_board(r.peer, a.pid, a.board, a.slot))
        failure = "the departure board of rank " + std::to_string(r.peer) + " could not be opened (/dev/shm)";
      try {
        char* theirs = links->map(a.pid, a.counter_base, a.counter_block, where_);
        if (!theirs)  // (the route is agreed already: the plan fails, on every process, saying why)
          throw_error(ErrorCode::Transport, where_, "transport",
                      "rank " + std::to_string(r.peer) +
                          "'s step counters are mapped in this process already by "
                          "another library (a CUDA-aware MPI's IPC cache of a freed buffer whose memory they reuse): "
                          "keep buffers MPI has sent allocated, or make the plan with the \"mpi\" transport");
        links->upstream.push_back({address(links->counters.at() + written_[r.peer]), address(theirs + a.free), r.peer,
                                   checkable(a.pid, a.pid_namespace)});
      } catch (const Error& e) {
        failure = e.what();
      }
    }
  }

  // The handshake's sends complete; the step's own stream.
  void finish() {
    setup_wait(static_cast<int>(requests_.size()), requests_.data(), where_, "MPI_Waitall (peer handshake)");
    sent_ = true;
    links->device = dev_.ordinal;
    if (failure.empty() && (!links->upstream.empty() || !links->downstream.empty())) {
      try {
        links->make_stream(where_);
      } catch (const Error& e) {
        failure = e.what();
      }
    }
  }

  // Whether any message of this process is left for the message transport.
  bool messages_left() const {
    for (const DirectRoute& r : routes)
      if (!r.direct) return true;
    for (const DirectReceive& r : direct_receives)
      if (!r.direct) return true;
    return false;
  }

 private:
  const std::vector<CommittedMessage>& sends_;
  const std::vector<CommittedMessage>& receives_;
  MPI_Comm comm_;
  int me_;
  std::int64_t node_, pid_, pid_namespace_;
  Device dev_;
  const char* where_;

 public:
  std::string failure;  // this process's first failure
  std::unique_ptr<PeerLinks> links;
  std::vector<DirectRoute> routes;             // per send
  std::vector<DirectReceive> direct_receives;  // per receive

 private:
  bool counters_ = false;                       // this process's counters exist (exported)
  std::map<int, std::int64_t> written_, free_;  // per peer: its counter's offset in this process's run
  std::vector<std::int64_t> landed_at_;         // per receive: its slice of the landing buffer (-1: none)
  std::map<int, int> downstream_;               // peers already linked: their place in links->downstream
  std::set<int> upstream_;
  std::vector<std::vector<std::int64_t>> out_;  // the handshake's messages in flight
  std::vector<MPI_Request> requests_;
  bool sent_ = false;  // requests_ completed

  std::set<int> boards_;  // peers whose departure board is open here

  // The word of this process's departure board that `peer` posts in.
  std::int64_t slot_of(int peer) const {
    const std::vector<int>& ranks = links->board_peers;
    return std::lower_bound(ranks.begin(), ranks.end(), peer) - ranks.begin();
  }

  // Opens `peer`'s departure board (once per peer): whether it is open.
  bool open_board(int peer, std::int64_t pid, std::int64_t token, std::int64_t slot) {
    if (boards_.count(peer)) return true;
    if (!links->board.open_peer(pid, token, static_cast<int>(slot))) return false;
    boards_.insert(peer);
    return true;
  }

  // A peer's pid where this process can check it (KokkosDDT_PeerLiveness.hpp), else 0.
  std::int64_t checkable(std::int64_t pid, std::int64_t ns) const { return ns != 0 && ns == pid_namespace_ ? pid : 0; }

  static CUdeviceptr address(char* at) { return reinterpret_cast<CUdeviceptr>(at); }

  // Whether receive r's cells lie in one exportable allocation of this process's GPU (its handle and base).
  bool exported(const CommittedMessage& r, cudaIpcMemHandle_t* handle, char** base) const {
    cudaIpcMemHandle_t h{};
    char* b = nullptr;
    const auto [lo, hi] = span(r);
    const bool ok = export_range(dev_.ordinal, lo, hi, h, b);
    if (handle) *handle = h;
    if (base) *base = b;
    return ok;
  }

  void post(std::vector<std::int64_t> words, int peer, int tag, const char* call) {
    out_.push_back(std::move(words));
    requests_.emplace_back();
    mpi_check(MPI_Isend(out_.back().data(), static_cast<int>(out_.back().size()), MPI_INT64_T, peer, tag, comm_,
                        &requests_.back()),
              where_, call);
  }

  // Send i goes direct: its receiver's cells (and, once per peer, its counters) mapped here. false: CUDA cannot map the
  // receiver's cells or counters here (map_peer's nullptr: memory another library keeps mapped), and the message stays
  // with the message transport; a mapping made before that is kept until the plan ends (unmapped with the others).
  bool go_direct(std::size_t i, const Offer& o, const std::vector<std::int64_t>& words) {
    const CommittedMessage& s = sends_[i];
    DirectRoute& route = routes[i];
    if (o.landed && o.count != s.count * s.type->size)
      throw_error(ErrorCode::Transport, where_, "transport", "a landed message's sizes differ between its ends");
    route.landed = o.landed != 0;
    if (!route.landed)
      route.type = committed_from_words(words.data() + words_of<Offer>(), words.size() - words_of<Offer>(), where_);
    char* cells = links->map(o.pid, o.cells_base, o.cells, where_);
    if (!cells) return false;
    const bool linked = downstream_.count(s.peer) != 0;
    char* theirs = linked ? nullptr : links->map(o.pid, o.counter_base, o.counter_block, where_);
    if (!linked && !theirs) return false;
    route.origin =
        reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(cells) + static_cast<std::uintptr_t>(o.origin));
    route.count = o.count;
    route.direct = true;
    route.gate = downstream_.emplace(s.peer, static_cast<int>(links->downstream.size())).first->second;
    if (linked) return true;
    const bool shared = o.gpu[0] == dev_.uuid[0] && o.gpu[1] == dev_.uuid[1];
    links->downstream.push_back({address(links->counters.at() + free_[s.peer]), address(theirs + o.written), s.peer,
                                 checkable(o.pid, o.pid_namespace), shared});
    return true;
  }
};

// The step of a peer plan: its links and the step of the messages that do not go direct.
class PeerStep final : public Step, public DeviceSignals {
 public:
  PeerStep(std::unique_ptr<PeerLinks> links, std::unique_ptr<Step> messages)
      : links_(std::move(links)), messages_(std::move(messages)) {
    links_->start_watching();
  }
  ~PeerStep() override {
    SetupClock clock("peer step destroy");
    messages_.reset();
    clock.mark("message step");
    links_.reset();  // (synchronizes its stream, unmaps, meets the other processes)
    clock.mark("links");
  }
  bool host_sends() const override { return messages_->host_sends(); }
  int messages() const override { return messages_->messages(); }
  StreamRef own_stream() const override { return links_->own_stream(); }
  DeviceSignals* device_signals() override { return this; }
  std::vector<std::uint64_t*> written_counters() const override { return links_->written_counters(); }
  std::uint64_t signal() const override { return links_->signal(); }
  std::vector<std::uint64_t*> begin_raises() const override { return links_->begin_raises(); }
  std::vector<std::uint64_t*> gates() const override { return links_->gates(); }
  bool low_half() const override { return links_->replayable(); }
  void begin_on_device() override { links_->begin_on_device(); }
  bool replayable() const override { return links_->replayable() && messages_->replayable(); }
  StreamRef begin(StreamRef stream) override {
    (void)messages_->begin(stream);
    StreamRef writing = stream;
    if (links_->own_stream().native) {
      links_->fork(stream);
      writing = links_->own_stream();
    }
    links_->begin(writing);
    return writing;
  }
  void send(StreamRef stream) override { messages_->send(stream); }
  void written(StreamRef writing) override { links_->written(writing); }
  bool test() override { return messages_->test(); }
  void wait(StreamRef stream) override {
    messages_->wait(stream);
    if (links_->own_stream().native) links_->join(stream);  // (this process's writes)
    links_->arrived(stream);
  }
  std::vector<int> ended_peers() override { return links_->ended_peers(); }
  void watch(StreamRef stream, double seconds) override {
    messages_->watch(stream, seconds);
    links_->watch(stream, seconds, "KokkosDDT::mpi: a plan's step");
  }
  StepFailure failure(std::int64_t step) override {
    StepFailure f = messages_->failure(step);
    return f.what.empty() ? links_->failure(step) : f;
  }
  std::vector<int> late_peers() override {
    std::vector<int> late = messages_->late_peers();
    for (int p : links_->late_peers())
      if (std::find(late.begin(), late.end(), p) == late.end()) late.push_back(p);
    return late;
  }
  void abandon(bool failed, double timeout, std::int64_t steps) override {
    messages_->abandon(failed, timeout, steps);
    links_->abandon(failed, timeout, steps);
  }

 private:
  std::unique_ptr<PeerLinks> links_;
  std::unique_ptr<Step> messages_;
};

}  // namespace

PeerTransport::PeerTransport(std::shared_ptr<MpiTransport> control, MessageTransport messages, const char* where)
    : control_(std::move(control)),
      choose_(messages),
      messages_(control_),
      node_(node_leader(control_->comm(), where)) {}

Deliveries PeerTransport::route(const std::vector<CommittedMessage>& sends,
                                const std::vector<CommittedMessage>& receives, const StagingSource& staging,
                                bool replayable, const char* where) {
  SetupClock clock("peer route");
  Handshake h(sends, receives, control_, node_, replayable, where);
  clock.mark("device and links");
  h.allocate();
  clock.mark("allocate");
  h.offer();
  h.answer();
  clock.mark("offers and answers");
  h.take_answers();
  clock.mark("counters");
  h.finish();
  clock.mark("stream");
  // One failure anywhere fails the plan everywhere (a process alone would wait for steps its peer never writes). The
  // same agreement tells whether any process has messages left for the message transport.
  Agreement verdict(control_->comm(), !h.failure.empty(), {}, {h.messages_left() ? 1u : 0u}, true, where);
  h.links->board.unlink();  // (every process has opened the boards it posts in)
  if (verdict.any_error())
    throw_error(ErrorCode::Transport, where, "transport",
                h.failure.empty() ? "failed to connect a peer process (that process's error says why)" : h.failure);
  clock.mark("agreement");
  messages_ = choose_(verdict.sum(0) > 0, control_, where);
  clock.mark("message transport");

  // The messages that do not go direct: the message transport's routes (the peer's side lays out the same ones).
  std::vector<CommittedMessage> rest_sends, rest_receives;
  for (std::size_t i = 0; i < sends.size(); ++i)
    if (!h.routes[i].direct) rest_sends.push_back(sends[i]);
  for (std::size_t j = 0; j < receives.size(); ++j)
    if (!h.direct_receives[j].direct) rest_receives.push_back(receives[j]);
  Deliveries rest = messages_->route(rest_sends, rest_receives, staging, replayable, where);
  clock.mark("message routes");
  Deliveries out;
  std::size_t k = 0;
  for (const DirectRoute& r : h.routes) {
    if (!r.direct) {
      out.sends.push_back(std::move(rest.sends[k++]));
      out.sends.back().why = r.why;
    } else if (r.landed) {
      out.sends.push_back({DeliveryKind::Landed, r.origin, 0, nullptr, "peer (landed)", r.why, r.gate});
    } else {
      out.sends.push_back({DeliveryKind::Typed, r.origin, r.count, r.type, "peer", r.why, r.gate});
    }
  }
  k = 0;
  for (const DirectReceive& r : h.direct_receives) {
    if (!r.direct) {
      out.receives.push_back(std::move(rest.receives[k++]));
      out.receives.back().why = r.why;
    } else {
      out.receives.push_back({r.landing ? DeliveryKind::Landed : DeliveryKind::Typed, r.landing, 0, nullptr,
                              r.landing ? "peer (landed)" : "peer", r.why});
    }
  }
  // (The links also without pairs: destroying them is the plan's collective end on every process.)
  out.step = std::make_unique<PeerStep>(std::move(h.links), std::move(rest.step));
  clock.mark("step");  // (its watcher registered; the handshake's own end follows, in the route's total)
  return out;
}

TransportEntry peer_transport_entry() {
  TransportEntry e;
  e.name = "peer";
  e.capabilities = PeerTransport::with_direct(MpiTransport::known_capabilities());  // (until route(): MPI's messages)
  e.make = [](const mpi::TransportChoice&, const std::shared_ptr<MpiTransport>& control,
              const char* where) -> std::shared_ptr<Transport> {
    auto on_control = [](bool, const std::shared_ptr<MpiTransport>& c, const char*) -> std::shared_ptr<Transport> {
      return c;
    };
    return std::make_shared<PeerTransport>(control, on_control, where);
  };
  e.make_routing = [](const std::shared_ptr<MpiTransport>& control, MessageTransport messages,
                      const char* where) -> std::shared_ptr<Transport> {
    return std::make_shared<PeerTransport>(control, messages, where);
  };
  return e;
}

}  // namespace KokkosDDT::Impl
