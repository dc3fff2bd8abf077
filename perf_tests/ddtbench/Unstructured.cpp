// SPDX-License-Identifier: BSD-3-Clause
// The unstructured micro-apps (ddtbench12 Sec. 2.2): index lists into one or several arrays.
//   SPECFEM3D_oc   one float per listed point: indexed_block(icount, 1, list) of float
//   SPECFEM3D_cm   three floats per listed point in two arrays: struct (absolute addresses) of indexed_blocks
//   LAMMPS_full    per listed atom x[3], tag, type, mask, q, molecule (6 arrays of double): struct of indexed_blocks;
//   LAMMPS_atomic  x[3], tag, type, mask; received contiguously at the end of each array (struct of contiguous)
#include "MicroApp.hpp"

namespace ddtbench {
namespace {

class SpecfemOC : public App<SpecfemOC> {
 public:
  SpecfemOC(std::int64_t icount, std::int64_t dim1, const char* label)
      : n_(icount), list_(random_list(icount, dim1, 4)), dlist_(device_list(list_)) {
    test = "SPECFEM3D_oc";
    size = label;
    packed_bytes = 4 * icount;
    allocate({4 * dim1});
  }
  template <class B>
  typename B::Type send_type(B& b, const Arrays&) const {
    return b.indexed_block(1, list_, b.template base<float>());
  }
  template <class B>
  typename B::Type recv_type(B& b, const Arrays& a) const {
    return send_type(b, a);
  }
  void manual_pack(const Arrays& a, char* buf) const override {
    const float* x = reinterpret_cast<const float*>(a[0]);
    float* out = reinterpret_cast<float*>(buf);
    for (std::int64_t k = 0; k < n_; ++k) out[k] = x[list_[k]];
  }
  void manual_unpack(const Arrays& a, const char* buf) const override {
    float* x = reinterpret_cast<float*>(a[0]);
    const float* in = reinterpret_cast<const float*>(buf);
    for (std::int64_t k = 0; k < n_; ++k) x[list_[k]] = in[k];
  }
  void hand_pack(const Exec& s, const Arrays& a, char* buf) const override {
    const auto l = dlist_;
    gather<float>(
        s, "hand SPECFEM3D_oc", n_, a[0], buf, KOKKOS_LAMBDA(std::int64_t i) { return l(i); });
  }
  void hand_unpack(const Exec& s, const Arrays& a, const char* buf) const override {
    const auto l = dlist_;
    scatter<float>(
        s, "hand SPECFEM3D_oc", n_, buf, a[0], KOKKOS_LAMBDA(std::int64_t i) { return l(i); });
  }

 private:
  std::int64_t n_;
  std::vector<std::int64_t> list_;
  Kokkos::View<std::int64_t*, ExecMem> dlist_;
};

class SpecfemCM : public App<SpecfemCM> {
 public:
  SpecfemCM(std::int64_t icm, std::int64_t iic, std::int64_t dcm, std::int64_t dic, const char* label)
      : icm_(icm), iic_(iic), lcm_(random_list(icm, dcm, 5)), lic_(random_list(iic, dic, 6)) {
    test = "SPECFEM3D_cm";
    size = label;
    packed_bytes = 12 * (icm + iic);
    allocate({12 * dcm, 12 * dic});
    for (auto& v : lcm_) v *= 3;  // the types' displacements: three floats per point
    for (auto& v : lic_) v *= 3;
    dcm_ = device_list(lcm_);
    dic_ = device_list(lic_);
    send_at.absolute = recv_at.absolute = true;
  }
  template <class B>
  typename B::Type send_type(B& b, const Arrays& a) const {
    const auto f = b.template base<float>();
    return b.struct_type({1, 1}, {address_of(a[0]), address_of(a[1])},
                         {b.indexed_block(3, lcm_, f), b.indexed_block(3, lic_, f)});
  }
  template <class B>
  typename B::Type recv_type(B& b, const Arrays& a) const {
    return send_type(b, a);
  }
  void manual_pack(const Arrays& a, char* buf) const override {
    const float* cm = reinterpret_cast<const float*>(a[0]);
    const float* ic = reinterpret_cast<const float*>(a[1]);
    float* out = reinterpret_cast<float*>(buf);
    std::int64_t c = 0;
    for (std::int64_t k = 0; k < icm_; ++k) {
      const std::int64_t n = lcm_[k];
      out[c++] = cm[n];
      out[c++] = cm[n + 1];
      out[c++] = cm[n + 2];
    }
    for (std::int64_t k = 0; k < iic_; ++k) {
      const std::int64_t n = lic_[k];
      out[c++] = ic[n];
      out[c++] = ic[n + 1];
      out[c++] = ic[n + 2];
    }
  }
  void manual_unpack(const Arrays& a, const char* buf) const override {
    float* cm = reinterpret_cast<float*>(a[0]);
    float* ic = reinterpret_cast<float*>(a[1]);
    const float* in = reinterpret_cast<const float*>(buf);
    std::int64_t c = 0;
    for (std::int64_t k = 0; k < icm_; ++k) {
      const std::int64_t n = lcm_[k];
      cm[n] = in[c++];
      cm[n + 1] = in[c++];
      cm[n + 2] = in[c++];
    }
    for (std::int64_t k = 0; k < iic_; ++k) {
      const std::int64_t n = lic_[k];
      ic[n] = in[c++];
      ic[n + 1] = in[c++];
      ic[n + 2] = in[c++];
    }
  }
  // One thread per packed float (three consecutive threads read one point's three floats).
  void hand_pack(const Exec& s, const Arrays& a, char* buf) const override {
    const auto lc = dcm_, li = dic_;
    const float* cm = reinterpret_cast<const float*>(a[0]);
    const float* ic = reinterpret_cast<const float*>(a[1]);
    float* out = reinterpret_cast<float*>(buf);
    const std::int64_t ncm = 3 * icm_;
    Kokkos::parallel_for(
        "hand SPECFEM3D_cm", Kokkos::RangePolicy<Exec>(s, 0, 3 * (icm_ + iic_)), KOKKOS_LAMBDA(std::int64_t i) {
          if (i < ncm)
            out[i] = cm[lc(i / 3) + i % 3];
          else
            out[i] = ic[li((i - ncm) / 3) + (i - ncm) % 3];
        });
  }
  void hand_unpack(const Exec& s, const Arrays& a, const char* buf) const override {
    const auto lc = dcm_, li = dic_;
    float* cm = reinterpret_cast<float*>(a[0]);
    float* ic = reinterpret_cast<float*>(a[1]);
    const float* in = reinterpret_cast<const float*>(buf);
    const std::int64_t ncm = 3 * icm_;
    Kokkos::parallel_for(
        "hand SPECFEM3D_cm", Kokkos::RangePolicy<Exec>(s, 0, 3 * (icm_ + iic_)), KOKKOS_LAMBDA(std::int64_t i) {
          if (i < ncm)
            cm[lc(i / 3) + i % 3] = in[i];
          else
            ic[li((i - ncm) / 3) + (i - ncm) % 3] = in[i];
        });
  }

 private:
  std::int64_t icm_, iic_;
  std::vector<std::int64_t> lcm_, lic_;
  Kokkos::View<std::int64_t*, ExecMem> dcm_, dic_;
};

// LAMMPS: arrays x (3 doubles per atom), then the per-atom scalars (tag, type, mask[, q, molecule]); each array holds
// dim1 local atoms and icount ghost slots after them. The manual loop puts each atom's values together (array of
// structures); the datatypes put each array's values together (structure of arrays): different wire orders.
class Lammps : public App<Lammps> {
 public:
  Lammps(bool full, std::int64_t icount, std::int64_t dim1, const char* label)
      : fields_(full ? 5 : 3), n_(icount), dim1_(dim1), list_(random_list(icount, dim1, full ? 7 : 8)) {
    test = full ? "LAMMPS_full" : "LAMMPS_atomic";
    size = label;
    same_wire = false;
    packed_bytes = 8 * (3 + fields_) * icount;
    std::vector<std::int64_t> bytes{24 * (dim1 + icount)};
    for (int f = 0; f < fields_; ++f) bytes.push_back(8 * (dim1 + icount));
    allocate(bytes);
    element_size = 8;
    for (std::int64_t v : list_) list3_.push_back(3 * v);
    dlist_ = device_list(list_);
    send_at.absolute = recv_at.absolute = true;
  }
  template <class B>
  typename B::Type send_type(B& b, const Arrays& a) const {
    const auto d = b.template base<double>();
    const auto i1 = b.indexed_block(1, list_, d);
    std::vector<typename B::Type> types{b.indexed_block(3, list3_, d)};
    std::vector<std::int64_t> disps{address_of(a[0])};
    for (int f = 1; f <= fields_; ++f) {
      types.push_back(i1);
      disps.push_back(address_of(a[f]));
    }
    return b.struct_type(std::vector<std::int64_t>(fields_ + 1, 1), disps, types);
  }
  template <class B>
  typename B::Type recv_type(B& b, const Arrays& a) const {
    const auto d = b.template base<double>();
    const auto c1 = b.contiguous(n_, d);
    std::vector<typename B::Type> types{b.contiguous(3 * n_, d)};
    std::vector<std::int64_t> disps{address_of(a[0] + 24 * dim1_)};
    for (int f = 1; f <= fields_; ++f) {
      types.push_back(c1);
      disps.push_back(address_of(a[f] + 8 * dim1_));
    }
    return b.struct_type(std::vector<std::int64_t>(fields_ + 1, 1), disps, types);
  }
  void manual_pack(const Arrays& a, char* buf) const override {
    const double* x = reinterpret_cast<const double*>(a[0]);
    double* out = reinterpret_cast<double*>(buf);
    std::int64_t p = 0;
    for (std::int64_t k = 0; k < n_; ++k) {
      const std::int64_t l = list_[k];
      out[p++] = x[3 * l];
      out[p++] = x[3 * l + 1];
      out[p++] = x[3 * l + 2];
      for (int f = 1; f <= fields_; ++f) out[p++] = reinterpret_cast<const double*>(a[f])[l];
    }
  }
  void manual_unpack(const Arrays& a, const char* buf) const override {
    double* x = reinterpret_cast<double*>(a[0]);
    const double* in = reinterpret_cast<const double*>(buf);
    std::int64_t p = 0;
    for (std::int64_t k = 0; k < n_; ++k) {
      const std::int64_t l = dim1_ + k;
      x[3 * l] = in[p++];
      x[3 * l + 1] = in[p++];
      x[3 * l + 2] = in[p++];
      for (int f = 1; f <= fields_; ++f) reinterpret_cast<double*>(a[f])[l] = in[p++];
    }
  }
  // One thread per atom, its values together (the manual loop's wire order).
  void hand_pack(const Exec& s, const Arrays& a, char* buf) const override {
    const auto l = dlist_;
    const int nf = fields_;
    const Ptrs ptrs = pointers(a);
    double* out = reinterpret_cast<double*>(buf);
    Kokkos::parallel_for(
        "hand LAMMPS", Kokkos::RangePolicy<Exec>(s, 0, n_), KOKKOS_LAMBDA(std::int64_t k) {
          const std::int64_t i = l(k);
          double* o = out + k * (3 + nf);
          o[0] = ptrs.p[0][3 * i];
          o[1] = ptrs.p[0][3 * i + 1];
          o[2] = ptrs.p[0][3 * i + 2];
          for (int f = 1; f <= nf; ++f) o[2 + f] = ptrs.p[f][i];
        });
  }
  void hand_unpack(const Exec& s, const Arrays& a, const char* buf) const override {
    const int nf = fields_;
    const std::int64_t d1 = dim1_;
    const Ptrs ptrs = pointers(a);
    const double* in = reinterpret_cast<const double*>(buf);
    Kokkos::parallel_for(
        "hand LAMMPS", Kokkos::RangePolicy<Exec>(s, 0, n_), KOKKOS_LAMBDA(std::int64_t k) {
          const std::int64_t i = d1 + k;
          const double* v = in + k * (3 + nf);
          ptrs.p[0][3 * i] = v[0];
          ptrs.p[0][3 * i + 1] = v[1];
          ptrs.p[0][3 * i + 2] = v[2];
          for (int f = 1; f <= nf; ++f) ptrs.p[f][i] = v[2 + f];
        });
  }

 public:  // (nvcc: types captured by device lambdas must be accessible)
  struct Ptrs {
    double* p[6];
  };

 private:
  Ptrs pointers(const Arrays& a) const {
    Ptrs r{};
    for (int f = 0; f <= fields_; ++f) r.p[f] = reinterpret_cast<double*>(a[f]);
    return r;
  }
  int fields_;
  std::int64_t n_, dim1_;
  std::vector<std::int64_t> list_, list3_;
  Kokkos::View<std::int64_t*, ExecMem> dlist_;
};

}  // namespace

void add_unstructured_apps(AppList& apps, bool smallest_only) {
  // ddtbench's sets (SPECFEM3D: a 10x10x6 mesh at c = 4, 3, 2, 1; LAMMPS: the most atoms per process of the peptide
  // and crack examples on 2, 4 and 8 processes); the first of each list is the default.
  struct OC {
    std::int64_t icount, dim1;
    const char* label;
  };
  const std::vector<OC> oc = {{3225, 88881, "c=4"}, {1897, 38585, "c=3"}, {877, 12857, "c=2"}, {493, 3697, "c=1"}};
  struct CM {
    std::int64_t icm, iic, dcm, dic;
    const char* label;
  };
  const std::vector<CM> cm = {{11797, 3009, 834917, 51153, "c=4"},
                              {7125, 1729, 396849, 22477, "c=3"},
                              {3801, 801, 152001, 7209, "c=2"},
                              {1957, 245, 39929, 1225, "c=1"}};
  struct LA {
    std::int64_t icount, dim1;
    const char* label;
  };
  const std::vector<LA> full = {{3062, 3534, "2 procs"}, {2243, 2597, "4 procs"}, {1662, 1907, "8 procs"}};
  const std::vector<LA> atomic = {{243, 4084, "2 procs"}, {145, 2157, "4 procs"}, {114, 1217, "8 procs"}};
  auto add = [&](std::unique_ptr<MicroApp> app, bool first) {
    app->is_default = first;
    apps.push_back(std::move(app));
  };
  for (std::size_t i = smallest_only ? oc.size() - 1 : 0; i < oc.size(); ++i)
    add(std::make_unique<SpecfemOC>(oc[i].icount, oc[i].dim1, oc[i].label), i == 0);
  for (std::size_t i = smallest_only ? cm.size() - 1 : 0; i < cm.size(); ++i)
    add(std::make_unique<SpecfemCM>(cm[i].icm, cm[i].iic, cm[i].dcm, cm[i].dic, cm[i].label), i == 0);
  for (std::size_t i = smallest_only ? full.size() - 1 : 0; i < full.size(); ++i)
    add(std::make_unique<Lammps>(true, full[i].icount, full[i].dim1, full[i].label), i == 0);
  for (std::size_t i = smallest_only ? atomic.size() - 1 : 0; i < atomic.size(); ++i)
    add(std::make_unique<Lammps>(false, atomic[i].icount, atomic[i].dim1, atomic[i].label), i == 0);
}

}  // namespace ddtbench
