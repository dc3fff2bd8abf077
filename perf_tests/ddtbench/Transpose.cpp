// SPDX-License-Identifier: BSD-3-Clause
// The interleaving micro-apps (ddtbench12 Sec. 2.3): send and receive types differ.
//   FFT           the all-to-all transpose of a 2-D FFT on P = 2 processes: a resized vector of complex per peer on
//                 the send side, a contiguous of resized single-column vectors on the receive side
//   SPECFEM3D_mt  one slice of a 3-D float array (vector of contiguous) received contiguously
#include "MicroApp.hpp"

namespace ddtbench {
namespace {

// The local N x n slab of an N x N complex matrix (column-major: M[row + col * N]), n = N / P. Peer k gets rows
// [k n, k n + n) of every local column; the receiver writes them transposed. Here the one process plays every peer:
// the packed stream holds all P blocks and is unpacked as if it had come back (the local half of the transpose).
class Fft : public App<Fft> {
 public:
  static constexpr std::int64_t P = 2;
  explicit Fft(std::int64_t dim) : N_(dim), n_(dim / P) {
    test = "FFT";
    size = std::to_string(dim);
    allocate({16 * N_ * n_, 16 * N_ * n_});  // matrix, receive array (complex: pairs of doubles)
    element_size = 8;
    packed_bytes = 16 * N_ * n_;
    send_at.count = recv_at.count = P;
    recv_at.array = 1;
  }
  template <class B>
  typename B::Type complex_type(B& b) const {
    return b.contiguous(2, b.template base<double>());
  }
  template <class B>
  typename B::Type send_type(B& b, const Arrays&) const {
    return b.resized(b.vector(n_, n_, N_, complex_type(b)), 0, 16 * n_);
  }
  template <class B>
  typename B::Type recv_type(B& b, const Arrays&) const {
    return b.contiguous(n_, b.resized(b.vector(n_, 1, N_, complex_type(b)), 0, 16));
  }
  using C = Kokkos::complex<double>;
  void manual_pack(const Arrays& a, char* buf) const override {
    const C* m = reinterpret_cast<const C*>(a[0]);
    C* out = reinterpret_cast<C*>(buf);
    for (std::int64_t k = 0; k < P; ++k)
      for (std::int64_t l = 0; l < n_; ++l) std::memcpy(out + k * n_ * n_ + l * n_, m + k * n_ + l * N_, 16 * n_);
  }
  void manual_unpack(const Arrays& a, const char* buf) const override {
    C* m = reinterpret_cast<C*>(a[1]);
    const C* in = reinterpret_cast<const C*>(buf);
    for (std::int64_t k = 0; k < n_; ++k)
      for (std::int64_t l = 0; l < N_; ++l) m[l + k * N_] = in[k + l * n_];
  }
  // Packed complex i = (peer k, column l, row r) <-> matrix[k n + r + l N]; received (k, l, r) -> recv[k n + l + r N].
  void hand_pack(const Exec& s, const Arrays& a, char* buf) const override {
    const std::int64_t N = N_, n = n_;
    gather<C>(
        s, "hand FFT", N_ * n_, a[0], buf, KOKKOS_LAMBDA(std::int64_t i) {
          const std::int64_t k = i / (n * n), l = (i / n) % n, r = i % n;
          return k * n + r + l * N;
        });
  }
  void hand_unpack(const Exec& s, const Arrays& a, const char* buf) const override {
    const std::int64_t N = N_, n = n_;
    scatter<C>(
        s, "hand FFT", N_ * n_, buf, a[1], KOKKOS_LAMBDA(std::int64_t i) {
          const std::int64_t k = i / (n * n), l = (i / n) % n, r = i % n;
          return k * n + l + r * N;
        });
  }

 private:
  std::int64_t N_, n_;
};

class SpecfemMT : public App<SpecfemMT> {
 public:
  SpecfemMT(std::int64_t d1, std::int64_t d2, std::int64_t d3, const char* label) : d1_(d1), d2_(d2), d3_(d3) {
    test = "SPECFEM3D_mt";
    size = label;
    allocate({4 * d1 * d2 * d3, 4 * d1 * d3});
    packed_bytes = 4 * d1 * d3;
    recv_at.array = 1;
  }
  template <class B>
  typename B::Type send_type(B& b, const Arrays&) const {
    return b.vector(d3_, 1, d2_, b.contiguous(d1_, b.template base<float>()));
  }
  template <class B>
  typename B::Type recv_type(B& b, const Arrays&) const {
    return b.contiguous(d3_ * d1_, b.template base<float>());
  }
  void manual_pack(const Arrays& a, char* buf) const override {
    for (std::int64_t k = 0; k < d3_; ++k) std::memcpy(buf + 4 * k * d1_, a[0] + 4 * k * d1_ * d2_, 4 * d1_);
  }
  // The application receives straight into the receive array; here the "received" buffer is copied there.
  void manual_unpack(const Arrays& a, const char* buf) const override { std::memcpy(a[1], buf, 4 * d1_ * d3_); }
  void hand_pack(const Exec& s, const Arrays& a, char* buf) const override {
    const std::int64_t d1 = d1_, d2 = d2_;
    gather<float>(
        s, "hand SPECFEM3D_mt", d1_ * d3_, a[0], buf,
        KOKKOS_LAMBDA(std::int64_t i) { return (i / d1) * d1 * d2 + i % d1; });
  }
  void hand_unpack(const Exec& s, const Arrays& a, const char* buf) const override {
    scatter<float>(
        s, "hand SPECFEM3D_mt", d1_ * d3_, buf, a[1], KOKKOS_LAMBDA(std::int64_t i) { return i; });
  }

 private:
  std::int64_t d1_, d2_, d3_;
};

}  // namespace

void add_transpose_apps(AppList& apps, bool smallest_only) {
  const std::vector<std::int64_t> fft = {256, 512, 768, 1024, 1536};
  struct MT {
    std::int64_t a, b, c;
    const char* label;
  };
  const std::vector<MT> mt = {{3, 2, 7600, "c=1"}, {3, 2, 6400, "c=2"}, {3, 2, 5600, "c=3"}, {3, 2, 6200, "c=4"}};
  for (std::size_t i = 0; i < (smallest_only ? 1 : fft.size()); ++i) {
    apps.push_back(std::make_unique<Fft>(fft[i]));
    apps.back()->is_default = i == 0;
  }
  for (std::size_t i = smallest_only ? 2 : 0; i < (smallest_only ? 3 : mt.size()); ++i) {
    apps.push_back(std::make_unique<SpecfemMT>(mt[i].a, mt[i].b, mt[i].c, mt[i].label));
    apps.back()->is_default = i == 0;
  }
}

}  // namespace ddtbench
