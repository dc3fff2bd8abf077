// SPDX-License-Identifier: BSD-3-Clause
// The Cartesian face exchanges (ddtbench12 Sec. 2.1), all arrays column-major as in the Fortran originals.
//   WRF_{x,y}_{vec,sa}  4 2-D, 3 3-D and 2 4-D float arrays: a struct (absolute addresses) of nested (h)vectors or of
//                       subarrays
//   MILC_su3_zd         a 5-D float array (6 floats per site): hvector of vector of contiguous
//   NAS_MG_{x,y,z}      one face of a 3-D double array: (h)vectors
//   NAS_LU_{x,y}        one face of a 5 x (n+2) x (n+2) double array: contiguous, vector of contiguous
#include "MicroApp.hpp"

namespace ddtbench {
namespace {

// ---------------------------------------------------------------------------------------------------------- WRF
struct WrfBox {
  std::int64_t dim1, dim2, dim3;  // x, z, y extents of the memory box
  std::int64_t s1, s2, s3;        // x, z, y extents of the sent sub-box
  std::int64_t is, ks, js;        // its 0-based start
  const char* label;
};

class Wrf : public App<Wrf> {
 public:
  static constexpr int n2 = 4, n3 = 3, n4 = 2;  // arrays; the 4-D ones send scalar index 1 of 2
  Wrf(bool x, bool subarray, const WrfBox& b) : b_(b), sa_(subarray) {
    test = std::string("WRF_") + (x ? "x" : "y") + (subarray ? "_sa" : "_vec");
    size = b.label;
    const std::int64_t plane = b.dim1 * b.dim3, vol = b.dim1 * b.dim2 * b.dim3;
    std::vector<std::int64_t> bytes;
    for (int m = 0; m < n2; ++m) bytes.push_back(4 * plane);
    for (int m = 0; m < n3; ++m) bytes.push_back(4 * vol);
    for (int m = 0; m < n4; ++m) bytes.push_back(4 * vol * 2);
    allocate(bytes);
    packed_bytes = 4 * (n2 * b.s1 * b.s3 + (n3 + n4) * b.s1 * b.s2 * b.s3);
    send_at.absolute = recv_at.absolute = true;
  }
  template <class B>
  typename B::Type send_type(B& b, const Arrays& a) const {
    const auto f = b.template base<float>();
    const WrfBox& w = b_;
    std::vector<typename B::Type> types;
    std::vector<std::int64_t> disps;
    if (sa_) {
      const auto t2 = b.subarray({w.dim1, w.dim3}, {w.s1, w.s3}, {w.is, w.js}, f);
      const auto t3 = b.subarray({w.dim1, w.dim2, w.dim3}, {w.s1, w.s2, w.s3}, {w.is, w.ks, w.js}, f);
      const auto t4 = b.subarray({w.dim1, w.dim2, w.dim3, 2}, {w.s1, w.s2, w.s3, 1}, {w.is, w.ks, w.js, 1}, f);
      for (int m = 0; m < n2 + n3 + n4; ++m) {
        types.push_back(m < n2 ? t2 : m < n2 + n3 ? t3 : t4);
        disps.push_back(address_of(a[m]));
      }
    } else {
      const auto t2 = b.vector(w.s3, w.s1, w.dim1, f);
      const auto t3 = b.hvector(w.s3, 1, 4 * w.dim1 * w.dim2, b.vector(w.s2, w.s1, w.dim1, f));
      const auto t4 = b.hvector(1, 1, 4 * w.dim1 * w.dim2 * w.dim3, t3);
      for (int m = 0; m < n2 + n3 + n4; ++m) {
        types.push_back(m < n2 ? t2 : m < n2 + n3 ? t3 : t4);
        disps.push_back(address_of(a[m]) + 4 * first(m));
      }
    }
    return b.struct_type(std::vector<std::int64_t>(types.size(), 1), disps, types);
  }
  template <class B>
  typename B::Type recv_type(B& b, const Arrays& a) const {
    return send_type(b, a);
  }
  // Element e of array m's part of the stream -> its index in array m.
  KOKKOS_INLINE_FUNCTION static std::int64_t index(const WrfBox& w, int m, std::int64_t e) {
    const std::int64_t x = w.is + e % w.s1;
    if (m < n2) return x + w.dim1 * (w.js + e / w.s1);
    const std::int64_t z = w.ks + (e / w.s1) % w.s2, y = w.js + e / (w.s1 * w.s2);
    return x + w.dim1 * (z + w.dim2 * y) + (m >= n2 + n3 ? w.dim1 * w.dim2 * w.dim3 : 0);
  }
  void manual_pack(const Arrays& a, char* buf) const override { manual<true>(a, reinterpret_cast<float*>(buf)); }
  void manual_unpack(const Arrays& a, const char* buf) const override {
    manual<false>(a, reinterpret_cast<float*>(const_cast<char*>(buf)));
  }
  void hand_pack(const Exec& s, const Arrays& a, char* buf) const override { hand(s, a, buf, true); }
  void hand_unpack(const Exec& s, const Arrays& a, const char* buf) const override {
    hand(s, a, const_cast<char*>(buf), false);
  }

 private:
  std::int64_t first(int m) const { return index(b_, m, 0); }
  // WRF's loops (unpack: the same with the assignment reversed).
  template <bool Pack>
  void manual(const Arrays& a, float* buf) const {
    const WrfBox& w = b_;
    auto move = [&](float* arr, std::int64_t i) {
      if constexpr (Pack)
        *buf++ = arr[i];
      else
        arr[i] = *buf++;
    };
    for (int m = 0; m < n2; ++m) {
      float* arr = reinterpret_cast<float*>(a[m]);
      for (std::int64_t y = w.js; y < w.js + w.s3; ++y)
        for (std::int64_t x = w.is; x < w.is + w.s1; ++x) move(arr, x + w.dim1 * y);
    }
    for (int m = n2; m < n2 + n3 + n4; ++m) {
      float* arr = reinterpret_cast<float*>(a[m]) + (m >= n2 + n3 ? w.dim1 * w.dim2 * w.dim3 : 0);
      for (std::int64_t y = w.js; y < w.js + w.s3; ++y)
        for (std::int64_t z = w.ks; z < w.ks + w.s2; ++z)
          for (std::int64_t x = w.is; x < w.is + w.s1; ++x) move(arr, x + w.dim1 * (z + w.dim2 * y));
    }
  }
  // One kernel over the whole stream; each thread finds its array, then its element. (Public: nvcc's device lambdas
  // need a public enclosing function.)
 public:
  struct Ptrs {
    float* p[n2 + n3 + n4];
  };
  void hand(const Exec& s, const Arrays& a, char* buf, bool pack) const {
    Ptrs ptrs;
    for (int m = 0; m < n2 + n3 + n4; ++m) ptrs.p[m] = reinterpret_cast<float*>(a[m]);
    const WrfBox w = b_;
    float* k = reinterpret_cast<float*>(buf);
    const std::int64_t e2 = w.s1 * w.s3, e3 = w.s1 * w.s2 * w.s3, n = n2 * e2 + (n3 + n4) * e3;
    Kokkos::parallel_for(
        "hand WRF", Kokkos::RangePolicy<Exec>(s, 0, n), KOKKOS_LAMBDA(std::int64_t i) {
          const int m = i < n2 * e2 ? int(i / e2) : n2 + int((i - n2 * e2) / e3);
          const std::int64_t e = i < n2 * e2 ? i % e2 : (i - n2 * e2) % e3;
          float* at = ptrs.p[m] + index(w, m, e);
          if (pack)
            k[i] = *at;
          else
            *at = k[i];
        });
  }

 private:
  WrfBox b_;
  bool sa_;
};

// ---------------------------------------------------------------------------------------------------------- MILC
class Milc : public App<Milc> {
 public:
  Milc(std::int64_t d2, std::int64_t d3, std::int64_t d4, std::int64_t d5) : d2_(d2), d3_(d3), d4_(d4), d5_(d5) {
    test = "MILC_su3_zd";
    size = std::to_string(d2) + "x" + std::to_string(d3) + "x" + std::to_string(d4) + "x" + std::to_string(d5);
    allocate({4 * 6 * d2 * d3 * d4 * d5});
    packed_bytes = 4 * 6 * d5 * d2 * d3;  // 2 * d5 blocks of d2 * d3 / 2 sites
  }
  template <class B>
  typename B::Type send_type(B& b, const Arrays&) const {
    const auto su3 = b.contiguous(6, b.template base<float>());
    const auto t = b.vector(d5_, d2_ * d3_ / 2, d2_ * d3_ * d4_ / 2, su3);
    return b.hvector(2, 1, 24 * d2_ * d3_ * d4_ * d5_ / 2, t);
  }
  template <class B>
  typename B::Type recv_type(B& b, const Arrays& a) const {
    return send_type(b, a);
  }
  void manual_pack(const Arrays& a, char* buf) const override { manual<true>(a, reinterpret_cast<float*>(buf)); }
  void manual_unpack(const Arrays& a, const char* buf) const override {
    manual<false>(a, reinterpret_cast<float*>(const_cast<char*>(buf)));
  }
  // Packed float i: site block j = i / (6 * half) (block j at j * d2 d3 d4 / 2 sites), site within it, float o.
  KOKKOS_INLINE_FUNCTION static std::int64_t index(std::int64_t i, std::int64_t half, std::int64_t block_stride) {
    const std::int64_t o = i % 6, site = i / 6;
    return 6 * ((site / half) * block_stride + site % half) + o;
  }
  void hand_pack(const Exec& s, const Arrays& a, char* buf) const override {
    const std::int64_t half = d2_ * d3_ / 2, bs = d2_ * d3_ * d4_ / 2;
    gather<float>(
        s, "hand MILC", packed_bytes / 4, a[0], buf, KOKKOS_LAMBDA(std::int64_t i) { return index(i, half, bs); });
  }
  void hand_unpack(const Exec& s, const Arrays& a, const char* buf) const override {
    const std::int64_t half = d2_ * d3_ / 2, bs = d2_ * d3_ * d4_ / 2;
    scatter<float>(
        s, "hand MILC", packed_bytes / 4, buf, a[0], KOKKOS_LAMBDA(std::int64_t i) { return index(i, half, bs); });
  }

 private:
  // MILC's z-down gather: for each t, the two z planes 0 and d4 / 2, their first d3 / 2 rows.
  template <bool Pack>
  void manual(const Arrays& a, float* buf) const {
    float* arr = reinterpret_cast<float*>(a[0]);
    for (std::int64_t t = 0; t < d5_; ++t)
      for (std::int64_t z = 0; z < d4_; z += d4_ / 2)
        for (std::int64_t y = 0; y < d3_ / 2; ++y)
          for (std::int64_t x = 0; x < d2_; ++x)
            for (std::int64_t o = 0; o < 6; ++o) {
              const std::int64_t i = o + 6 * (x + d2_ * (y + d3_ * (z + d4_ * t)));
              if constexpr (Pack)
                *buf++ = arr[i];
              else
                arr[i] = *buf++;
            }
  }
  std::int64_t d2_, d3_, d4_, d5_;
};

// ---------------------------------------------------------------------------------------------------------- NAS_MG
class NasMG : public App<NasMG> {
 public:
  NasMG(char dir, std::int64_t d1, std::int64_t d2, std::int64_t d3) : dir_(dir), d1_(d1), d2_(d2), d3_(d3) {
    test = std::string("NAS_MG_") + dir;
    size = std::to_string(d1) + "x" + std::to_string(d2) + "x" + std::to_string(d3);
    allocate({8 * d1 * d2 * d3});
    element_size = 8;
    inner_ = dir == 'x' ? d2 - 2 : d1 - 2;
    outer_ = dir == 'z' ? d2 - 2 : d3 - 2;
    packed_bytes = 8 * inner_ * outer_;
    // Send the last interior face, receive into the ghost face beyond it (z: the first interior, into the first).
    send_at.offset = 8 * (dir == 'x' ? idx(d1 - 2, 1, 1) : dir == 'y' ? idx(1, d2 - 2, 1) : idx(1, 1, 1));
    recv_at.offset = 8 * (dir == 'x' ? idx(d1 - 1, 1, 1) : dir == 'y' ? idx(1, d2 - 1, 1) : idx(1, 1, 0));
  }
  std::int64_t idx(std::int64_t x, std::int64_t y, std::int64_t z) const { return x + d1_ * (y + d2_ * z); }
  template <class B>
  typename B::Type send_type(B& b, const Arrays&) const {
    const auto d = b.template base<double>();
    if (dir_ == 'x') return b.hvector(d3_ - 2, 1, 8 * d1_ * d2_, b.vector(d2_ - 2, 1, d1_, d));
    if (dir_ == 'y') return b.vector(d3_ - 2, d1_ - 2, d1_ * d2_, d);
    return b.vector(d2_ - 2, d1_ - 2, d1_, d);
  }
  template <class B>
  typename B::Type recv_type(B& b, const Arrays& a) const {
    return send_type(b, a);
  }
  // Packed double (inner i, outer o) relative to the face's first element.
  std::int64_t inner_step() const { return dir_ == 'x' ? d1_ : 1; }
  std::int64_t outer_step() const { return dir_ == 'z' ? d1_ : d1_ * d2_; }
  void manual_pack(const Arrays& a, char* buf) const override {
    const double* f = reinterpret_cast<const double*>(a[0] + send_at.offset);
    double* out = reinterpret_cast<double*>(buf);
    const std::int64_t si = inner_step(), so = outer_step();
    for (std::int64_t o = 0; o < outer_; ++o)
      for (std::int64_t i = 0; i < inner_; ++i) *out++ = f[o * so + i * si];
  }
  void manual_unpack(const Arrays& a, const char* buf) const override {
    double* f = reinterpret_cast<double*>(a[0] + recv_at.offset);
    const double* in = reinterpret_cast<const double*>(buf);
    const std::int64_t si = inner_step(), so = outer_step();
    for (std::int64_t o = 0; o < outer_; ++o)
      for (std::int64_t i = 0; i < inner_; ++i) f[o * so + i * si] = *in++;
  }
  void hand_pack(const Exec& s, const Arrays& a, char* buf) const override {
    const std::int64_t si = inner_step(), so = outer_step(), n = inner_;
    gather<double>(
        s, "hand NAS_MG", inner_ * outer_, a[0] + send_at.offset, buf,
        KOKKOS_LAMBDA(std::int64_t e) { return (e / n) * so + (e % n) * si; });
  }
  void hand_unpack(const Exec& s, const Arrays& a, const char* buf) const override {
    const std::int64_t si = inner_step(), so = outer_step(), n = inner_;
    scatter<double>(
        s, "hand NAS_MG", inner_ * outer_, buf, a[0] + recv_at.offset,
        KOKKOS_LAMBDA(std::int64_t e) { return (e / n) * so + (e % n) * si; });
  }

 private:
  char dir_;
  std::int64_t d1_, d2_, d3_, inner_ = 0, outer_ = 0;
};

// ---------------------------------------------------------------------------------------------------------- NAS_LU
class NasLU : public App<NasLU> {
 public:
  NasLU(char dir, std::int64_t n) : dir_(dir), n_(n) {
    test = std::string("NAS_LU_") + dir;
    size = std::to_string(n);
    allocate({8 * 5 * (n + 2) * (n + 2)});
    element_size = 8;
    packed_bytes = 8 * 5 * n;
    send_at.offset = 8 * (dir == 'x' ? idx(0, 1, n) : idx(0, n, 1));
    recv_at.offset = 8 * (dir == 'x' ? idx(0, 1, 0) : idx(0, 0, 1));
  }
  std::int64_t idx(std::int64_t c, std::int64_t y, std::int64_t z) const { return c + 5 * (y + (n_ + 2) * z); }
  template <class B>
  typename B::Type send_type(B& b, const Arrays&) const {
    const auto d = b.template base<double>();
    if (dir_ == 'x') return b.contiguous(5 * n_, d);
    return b.vector(n_, 1, n_ + 2, b.contiguous(5, d));
  }
  template <class B>
  typename B::Type recv_type(B& b, const Arrays& a) const {
    return send_type(b, a);
  }
  std::int64_t step() const { return dir_ == 'x' ? 5 : 5 * (n_ + 2); }  // between consecutive 5-double points
  void manual_pack(const Arrays& a, char* buf) const override {
    const double* f = reinterpret_cast<const double*>(a[0] + send_at.offset);
    double* out = reinterpret_cast<double*>(buf);
    for (std::int64_t j = 0; j < n_; ++j)
      for (std::int64_t c = 0; c < 5; ++c) *out++ = f[j * step() + c];
  }
  void manual_unpack(const Arrays& a, const char* buf) const override {
    double* f = reinterpret_cast<double*>(a[0] + recv_at.offset);
    const double* in = reinterpret_cast<const double*>(buf);
    for (std::int64_t j = 0; j < n_; ++j)
      for (std::int64_t c = 0; c < 5; ++c) f[j * step() + c] = *in++;
  }
  void hand_pack(const Exec& s, const Arrays& a, char* buf) const override {
    const std::int64_t st = step();
    gather<double>(
        s, "hand NAS_LU", 5 * n_, a[0] + send_at.offset, buf,
        KOKKOS_LAMBDA(std::int64_t e) { return (e / 5) * st + e % 5; });
  }
  void hand_unpack(const Exec& s, const Arrays& a, const char* buf) const override {
    const std::int64_t st = step();
    scatter<double>(
        s, "hand NAS_LU", 5 * n_, buf, a[0] + recv_at.offset,
        KOKKOS_LAMBDA(std::int64_t e) { return (e / 5) * st + e % 5; });
  }

 private:
  char dir_;
  std::int64_t n_;
};

}  // namespace

void add_face_apps(AppList& apps, bool smallest_only) {
  // ddtbench's sets, first = default. WRF: the em_b_wave case on 2x2 ... 8x8 process grids.
  const std::vector<WrfBox> wrf_y = {{32, 65, 52, 23, 65, 3, 5, 0, 7, "2x2"},
                                     {27, 65, 41, 19, 65, 3, 4, 0, 7, "3x3"},
                                     {24, 65, 34, 16, 65, 3, 4, 0, 7, "4x4"},
                                     {22, 65, 30, 14, 65, 3, 4, 0, 7, "5x5"},
                                     {19, 65, 24, 11, 65, 3, 4, 0, 7, "8x8"}};
  const std::vector<WrfBox> wrf_x = {{32, 65, 52, 3, 65, 44, 22, 0, 4, "2x2"},
                                     {24, 65, 34, 3, 65, 26, 14, 0, 4, "4x4"},
                                     {19, 65, 24, 3, 65, 16, 9, 0, 4, "8x8"}};
  struct M4 {
    std::int64_t a, b, c, d;
  };
  const std::vector<M4> milc = {{16, 16, 16, 16}, {8, 16, 16, 16}, {8, 8, 8, 16}, {8, 8, 8, 8}};
  struct M3 {
    std::int64_t a, b, c;
  };
  const std::vector<M3> mg = {{34, 18, 18}, {130, 66, 66}, {258, 130, 130}, {514, 258, 258}};
  const std::vector<std::int64_t> lu = {12, 33, 64, 102, 162, 408, 1020};
  auto add = [&](std::unique_ptr<MicroApp> app, bool first) {
    app->is_default = first;
    apps.push_back(std::move(app));
  };
  for (bool x : {false, true}) {
    const auto& boxes = x ? wrf_x : wrf_y;
    for (std::size_t i = smallest_only ? boxes.size() - 1 : 0; i < boxes.size(); ++i)
      for (bool sa : {false, true}) add(std::make_unique<Wrf>(x, sa, boxes[i]), i == 0);
  }
  for (std::size_t i = smallest_only ? milc.size() - 1 : 0; i < milc.size(); ++i)
    add(std::make_unique<Milc>(milc[i].a, milc[i].b, milc[i].c, milc[i].d), i == 0);
  for (std::size_t i = 0; i < (smallest_only ? 1 : mg.size()); ++i)
    for (char d : {'x', 'y', 'z'}) add(std::make_unique<NasMG>(d, mg[i].a, mg[i].b, mg[i].c), i == 0);
  for (std::size_t i = 0; i < (smallest_only ? 1 : lu.size()); ++i)
    for (char d : {'x', 'y'}) add(std::make_unique<NasLU>(d, lu[i]), i == 0);
}

}  // namespace ddtbench
