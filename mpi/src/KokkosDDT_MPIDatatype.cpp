// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_MPIDatatype.hpp"
#include "KokkosDDT_MPIError.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <map>
#include <type_traits>
#include <vector>

#include "KokkosDDT_Constructors.hpp"
#include "KokkosDDT_Primitives.hpp"
#include "KokkosDDT_TypeNode.hpp"

namespace KokkosDDT::mpi {

namespace {

using Impl::throw_error;
using Impl::TypeNode;

void check(int rc, const char* where, const char* call) { Impl::mpi_check(rc, where, call); }

// MPI-4's large-count constructors (the _c functions) take every count and displacement as an MPI_Count; MPI-3's take
// counts and element displacements as int and byte displacements as MPI_Aint. Types whose values fit an int are built
// with the classic constructors, so that MPI-3 code can inspect them (MPICH refuses MPI_Type_get_envelope on a type
// built with a _c constructor, and libraries that walk datatypes use it); only a level with a larger value takes the
// _c constructor, where the MPI has one. `Count`/`Bytes` are the argument types of the chosen form.
template <class Count>
Count count(std::int64_t x) {
  if (x > std::numeric_limits<Count>::max() || x < std::numeric_limits<Count>::min())
    throw_error(ErrorCode::Unsupported, "KokkosDDT::mpi::to_mpi", "",
                "a count of " + std::to_string(x) + " does not fit this MPI's int (MPI-4 has large counts)");
  return static_cast<Count>(x);
}
template <class Count>
std::vector<Count> counts(const std::vector<std::int64_t>& v) {
  std::vector<Count> out;
  for (std::int64_t x : v) out.push_back(count<Count>(x));
  return out;
}
template <class Bytes>
std::vector<Bytes> bytes(const std::vector<std::int64_t>& v) {
  return std::vector<Bytes>(v.begin(), v.end());  // (both are 64-bit)
}

// Whether every value that the classic constructor of n takes as an int fits one.
bool fits_int(const TypeNode& n) {
  auto fits = [](std::int64_t x) {
    return x >= std::numeric_limits<int>::min() && x <= std::numeric_limits<int>::max();
  };
  auto all_fit = [&](const std::vector<std::int64_t>& v) { return std::all_of(v.begin(), v.end(), fits); };
  const bool element_displacements = n.combiner == Combiner::Indexed || n.combiner == Combiner::IndexedBlock;
  return fits(n.count) && fits(n.blocklength) && (n.combiner != Combiner::Vector || fits(n.stride)) &&
         all_fit(n.blocklengths) && (!element_displacements || all_fit(n.displacements)) && all_fit(n.sizes) &&
         all_fit(n.subsizes) && all_fit(n.starts) && (n.combiner != Combiner::Named || fits(n.size));
}

#if MPI_VERSION >= 4
#define KOKKOSDDT_MPI_CALL(function, ...)                    \
  if constexpr (Large)                                       \
    check(function##_c(__VA_ARGS__), where, #function "_c"); \
  else                                                       \
    check(function(__VA_ARGS__), where, #function)
#else
#define KOKKOSDDT_MPI_CALL(function, ...) check(function(__VA_ARGS__), where, #function)
#endif

// The MPI handles made for one export, one per type node: a child shared by several fields maps to one handle, so
// MPI sees the same sharing (MPICH builds a struct whose fields are all one type as hindexed, without padding).
class Builder {
 public:
  ~Builder() {
    for (auto& [node, handle] : made_)
      if (handle != result_) MPI_Type_free(&handle);
  }
  MPI_Datatype build(const TypeNode& n);
  MPI_Datatype release(const TypeNode& root) {  // the root's handle now belongs to the caller
    result_ = made_.at(&root);
    return result_;
  }

 private:
  MPI_Datatype make(const TypeNode& n);
  template <bool Large>
  MPI_Datatype make_as(const TypeNode& n);
  MPI_Datatype child(const TypeNode& n, std::size_t i) { return build(n.child(i)); }
  std::map<const TypeNode*, MPI_Datatype> made_;
  MPI_Datatype result_ = MPI_DATATYPE_NULL;
};

MPI_Datatype Builder::build(const TypeNode& n) {
  if (n.combiner == Combiner::Named && n.primitive != Primitive::Opaque) return to_mpi(n.primitive);
  auto found = made_.find(&n);
  if (found != made_.end()) return found->second;
  MPI_Datatype t = make(n);
  made_.emplace(&n, t);
  return t;
}

template <bool Large>
MPI_Datatype Builder::make_as(const TypeNode& n) {
  using Count = std::conditional_t<Large, MPI_Count, int>;
  using Bytes = std::conditional_t<Large, MPI_Count, MPI_Aint>;
  const char* where = "KokkosDDT::mpi::to_mpi";
  MPI_Datatype t = MPI_DATATYPE_NULL;
  switch (n.combiner) {
    case Combiner::Named:  // Opaque
      KOKKOSDDT_MPI_CALL(MPI_Type_contiguous, count<Count>(n.size), MPI_BYTE, &t);
      break;
    case Combiner::Dup:
      check(MPI_Type_dup(child(n, 0), &t), where, "MPI_Type_dup");
      break;
    case Combiner::Contiguous:
      KOKKOSDDT_MPI_CALL(MPI_Type_contiguous, count<Count>(n.count), child(n, 0), &t);
      break;
    case Combiner::Vector:
      KOKKOSDDT_MPI_CALL(MPI_Type_vector, count<Count>(n.count), count<Count>(n.blocklength), count<Count>(n.stride),
                         child(n, 0), &t);
      break;
    case Combiner::Hvector:
      KOKKOSDDT_MPI_CALL(MPI_Type_create_hvector, count<Count>(n.count), count<Count>(n.blocklength),
                         static_cast<Bytes>(n.stride), child(n, 0), &t);
      break;
    case Combiner::Indexed: {
      const auto bl = counts<Count>(n.blocklengths), d = counts<Count>(n.displacements);
      KOKKOSDDT_MPI_CALL(MPI_Type_indexed, count<Count>(n.count), bl.data(), d.data(), child(n, 0), &t);
      break;
    }
    case Combiner::Hindexed: {
      const auto bl = counts<Count>(n.blocklengths);
      const auto d = bytes<Bytes>(n.displacements);
      KOKKOSDDT_MPI_CALL(MPI_Type_create_hindexed, count<Count>(n.count), bl.data(), d.data(), child(n, 0), &t);
      break;
    }
    case Combiner::IndexedBlock: {
      const auto d = counts<Count>(n.displacements);
      KOKKOSDDT_MPI_CALL(MPI_Type_create_indexed_block, count<Count>(n.count), count<Count>(n.blocklength), d.data(),
                         child(n, 0), &t);
      break;
    }
    case Combiner::HindexedBlock: {
      const auto d = bytes<Bytes>(n.displacements);
      KOKKOSDDT_MPI_CALL(MPI_Type_create_hindexed_block, count<Count>(n.count), count<Count>(n.blocklength), d.data(),
                         child(n, 0), &t);
      break;
    }
    case Combiner::Subarray: {
      const auto sz = counts<Count>(n.sizes), sub = counts<Count>(n.subsizes), st = counts<Count>(n.starts);
      KOKKOSDDT_MPI_CALL(MPI_Type_create_subarray, static_cast<int>(sz.size()), sz.data(), sub.data(), st.data(),
                         n.order == Order::C ? MPI_ORDER_C : MPI_ORDER_FORTRAN, child(n, 0), &t);
      break;
    }
    case Combiner::Struct: {
      const auto bl = counts<Count>(n.blocklengths);
      const auto d = bytes<Bytes>(n.displacements);
      std::vector<MPI_Datatype> types;
      for (std::size_t i = 0; i < n.children.size(); ++i) types.push_back(child(n, i));
      KOKKOSDDT_MPI_CALL(MPI_Type_create_struct, count<Count>(n.count), bl.data(), d.data(), types.data(), &t);
      break;
    }
    case Combiner::Resized:
      KOKKOSDDT_MPI_CALL(MPI_Type_create_resized, child(n, 0), static_cast<Bytes>(n.resized_lb),
                         static_cast<Bytes>(n.resized_extent), &t);
      break;
  }
  return t;
}

MPI_Datatype Builder::make(const TypeNode& n) {
  constexpr bool large_counts = MPI_VERSION >= 4;  // (MPI-3: the classic form, which refuses what does not fit)
  if (large_counts && !fits_int(n)) return make_as<large_counts>(n);
  return make_as<false>(n);
}

// ------------------------------------------------------------------------------------------- import

struct NamedEntry {
  MPI_Datatype mpi;
  Datatype (*make)();
};

template <class T>
Datatype make_primitive() {
  return primitive<T>();
}

Datatype named_from_mpi(MPI_Datatype t) {
  static const NamedEntry table[] = {
      {MPI_BYTE, [] { return byte(); }},
      {MPI_PACKED, [] { return byte(); }},
      {MPI_CHAR, make_primitive<char>},
      {MPI_SIGNED_CHAR, make_primitive<signed char>},
      {MPI_UNSIGNED_CHAR, make_primitive<unsigned char>},
      {MPI_C_BOOL, make_primitive<bool>},
      {MPI_CXX_BOOL, make_primitive<bool>},
      {MPI_SHORT, make_primitive<short>},
      {MPI_UNSIGNED_SHORT, make_primitive<unsigned short>},
      {MPI_INT, make_primitive<int>},
      {MPI_UNSIGNED, make_primitive<unsigned>},
      {MPI_LONG, make_primitive<long>},
      {MPI_UNSIGNED_LONG, make_primitive<unsigned long>},
      {MPI_LONG_LONG, make_primitive<long long>},
      {MPI_UNSIGNED_LONG_LONG, make_primitive<unsigned long long>},
      {MPI_INT8_T, make_primitive<std::int8_t>},
      {MPI_INT16_T, make_primitive<std::int16_t>},
      {MPI_INT32_T, make_primitive<std::int32_t>},
      {MPI_INT64_T, make_primitive<std::int64_t>},
      {MPI_UINT8_T, make_primitive<std::uint8_t>},
      {MPI_UINT16_T, make_primitive<std::uint16_t>},
      {MPI_UINT32_T, make_primitive<std::uint32_t>},
      {MPI_UINT64_T, make_primitive<std::uint64_t>},
      {MPI_AINT, make_primitive<MPI_Aint>},
      {MPI_OFFSET, make_primitive<MPI_Offset>},
      {MPI_COUNT, make_primitive<MPI_Count>},
      {MPI_FLOAT, make_primitive<float>},
      {MPI_DOUBLE, make_primitive<double>},
      {MPI_C_FLOAT_COMPLEX, make_primitive<std::complex<float>>},
      {MPI_C_DOUBLE_COMPLEX, make_primitive<std::complex<double>>},
      {MPI_CXX_FLOAT_COMPLEX, make_primitive<std::complex<float>>},
      {MPI_CXX_DOUBLE_COMPLEX, make_primitive<std::complex<double>>},
  };
  for (const auto& e : table)
    if (e.mpi == t) return e.make();
  char name[MPI_MAX_OBJECT_NAME] = "?";
  int len = 0;
  MPI_Type_get_name(t, name, &len);
  throw_error(ErrorCode::Unsupported, "KokkosDDT::mpi::from_mpi", "type",
              std::string("is the named MPI type ") + name + ", which has no KokkosDDT primitive");
}

// MPI_Type_get_contents, with large-count (MPI-4 _c) and classic layouts read through one interface.
struct Contents {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> addrs;
  std::vector<std::int64_t> large;  // MPI_Count entries (MPI-4 types built with _c constructors)
  std::vector<MPI_Datatype> types;
  bool is_large() const { return !large.empty(); }
};

Contents contents(MPI_Datatype t) {
  const char* where = "KokkosDDT::mpi::from_mpi";
  Contents c;
#if MPI_VERSION >= 4
  MPI_Count ni, na, nl, nt;
  check(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nt, &c.combiner), where, "MPI_Type_get_envelope_c");
  if (c.combiner == MPI_COMBINER_NAMED) return c;
  c.ints.resize(ni);
  c.addrs.resize(na);
  std::vector<MPI_Count> l(nl);
  c.types.resize(nt);
  check(MPI_Type_get_contents_c(t, ni, na, nl, nt, c.ints.data(), c.addrs.data(), l.data(), c.types.data()), where,
        "MPI_Type_get_contents_c");
  c.large.assign(l.begin(), l.end());
#else
  int ni, na, nt;
  check(MPI_Type_get_envelope(t, &ni, &na, &nt, &c.combiner), where, "MPI_Type_get_envelope");
  if (c.combiner == MPI_COMBINER_NAMED) return c;
  c.ints.resize(ni);
  c.addrs.resize(na);
  c.types.resize(nt);
  check(MPI_Type_get_contents(t, ni, na, nt, c.ints.data(), c.addrs.data(), c.types.data()), where,
        "MPI_Type_get_contents");
#endif
  return c;
}

// Whether `t` is a named (predefined) type: its envelope alone (get_contents would hand out new handles to free).
bool is_named(MPI_Datatype t) {
  int combiner;
#if MPI_VERSION >= 4
  MPI_Count ni, na, nl, nt;
  check(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nt, &combiner), "KokkosDDT::mpi::from_mpi",
        "MPI_Type_get_envelope_c");
#else
  int ni, na, nt;
  check(MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner), "KokkosDDT::mpi::from_mpi", "MPI_Type_get_envelope");
#endif
  return combiner == MPI_COMBINER_NAMED;
}

// The datatype handles MPI_Type_get_contents returned: each derived one is the caller's to free, once per entry (a
// handle returned for several fields counts once each), also when importing them throws half-way.
class ContentHandles {
 public:
  explicit ContentHandles(std::vector<MPI_Datatype>& types) : types_(types) {
    for (MPI_Datatype t : types_) derived_.push_back(!is_named(t));
  }
  ~ContentHandles() {
    for (std::size_t i = 0; i < types_.size(); ++i)
      if (derived_[i]) MPI_Type_free(&types_[i]);
  }
  ContentHandles(const ContentHandles&) = delete;
  ContentHandles& operator=(const ContentHandles&) = delete;

 private:
  std::vector<MPI_Datatype>& types_;
  std::vector<bool> derived_;
};

// Imports each datatype get_contents returned. A handle returned for several fields is imported once, so the fields
// share one type, as they do in MPI (which matters for struct padding).
std::vector<Datatype> import_children(const std::vector<MPI_Datatype>& types) {
  std::vector<Datatype> out;
  std::map<MPI_Datatype, Datatype> imported;
  for (MPI_Datatype t : types) {
    auto found = imported.find(t);
    out.push_back(found != imported.end() ? found->second : imported.emplace(t, from_mpi(t)).first->second);
  }
  return out;
}

template <class T>
std::vector<std::int64_t> slice(const std::vector<T>& v, std::size_t first, std::size_t n) {
  return std::vector<std::int64_t>(v.begin() + first, v.begin() + first + n);
}

}  // namespace

MPI_Datatype to_mpi(Primitive p) {
  switch (p) {
    case Primitive::Byte:
      return MPI_BYTE;
    case Primitive::Char:
      return MPI_CHAR;
    case Primitive::Bool:
      return MPI_C_BOOL;
    case Primitive::Int8:
      return MPI_INT8_T;
    case Primitive::Int16:
      return MPI_INT16_T;
    case Primitive::Int32:
      return MPI_INT32_T;
    case Primitive::Int64:
      return MPI_INT64_T;
    case Primitive::UInt8:
      return MPI_UINT8_T;
    case Primitive::UInt16:
      return MPI_UINT16_T;
    case Primitive::UInt32:
      return MPI_UINT32_T;
    case Primitive::UInt64:
      return MPI_UINT64_T;
    case Primitive::Float:
      return MPI_FLOAT;
    case Primitive::Double:
      return MPI_DOUBLE;
    case Primitive::ComplexFloat:
      return MPI_C_FLOAT_COMPLEX;
    case Primitive::ComplexDouble:
      return MPI_C_DOUBLE_COMPLEX;
    case Primitive::Opaque:
      return MPI_DATATYPE_NULL;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Datatype to_mpi(const Datatype& type) {
  const TypeNode& n = type.impl_node("KokkosDDT::mpi::to_mpi");
  MPI_Datatype result;
  if (n.combiner == Combiner::Named && n.primitive != Primitive::Opaque) {
    // A named primitive: hand out a duplicate the caller can free like any other result.
    check(MPI_Type_dup(to_mpi(n.primitive), &result), "KokkosDDT::mpi::to_mpi", "MPI_Type_dup");
  } else {
    Builder builder;
    builder.build(n);
    result = builder.release(n);
  }
  check(MPI_Type_commit(&result), "KokkosDDT::mpi::to_mpi", "MPI_Type_commit");
  return result;
}

namespace {

Distribution distribution(int d) {
  switch (d) {
    case MPI_DISTRIBUTE_BLOCK:
      return Distribution::Block;
    case MPI_DISTRIBUTE_CYCLIC:
      return Distribution::Cyclic;
    default:
      return Distribution::None;
  }
}

// MPI_COMBINER_DARRAY's contents: integers size, rank, ndims, [gsizes], distribs, dargs, psizes, order (gsizes are
// large counts in types built with MPI_Type_create_darray_c, integers otherwise).
Datatype darray_from_contents(const Contents& c, const Datatype& oldtype) {
  const auto& I = c.ints;
  const std::size_t n = static_cast<std::size_t>(I[2]);
  const std::vector<std::int64_t> gsizes = c.is_large() ? slice(c.large, 0, n) : slice(I, 3, n);
  const std::size_t at = c.is_large() ? 3 : 3 + n;
  std::vector<Distribution> distribs;
  std::vector<std::int64_t> dargs;
  for (std::size_t i = 0; i < n; ++i) {
    distribs.push_back(distribution(I[at + i]));
    dargs.push_back(I[at + n + i] == MPI_DISTRIBUTE_DFLT_DARG ? kDefaultDarg : I[at + n + i]);
  }
  const Order order = I[at + 3 * n] == MPI_ORDER_C ? Order::C : Order::Fortran;
  return darray(I[0], I[1], gsizes, distribs, dargs, slice(I, at + 2 * n, n), order, oldtype);
}

// The linked MPI's bounds: MPI libraries disagree on some (MPICH and Open MPI on resized types inside structs and on
// struct padding), and the bounds decide where instance 2 of a count > 1 starts. Imported types take the MPI's own,
// at every level (from_mpi imports children through itself), so they walk memory exactly as that MPI does.
Datatype with_mpi_bounds(const Datatype& t, MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0;
  check(MPI_Type_get_extent(type, &lb, &extent), "KokkosDDT::mpi::from_mpi", "MPI_Type_get_extent");
  if (t.lb() == lb && t.extent() == extent) return t;
  return resized(t, lb, extent);
}

Datatype import_type(MPI_Datatype type) {
  const char* where = "KokkosDDT::mpi::from_mpi";
  Contents c = contents(type);
  if (c.combiner == MPI_COMBINER_NAMED) return named_from_mpi(type);
  const ContentHandles owned(c.types);  // freed on every way out, a throw included
  std::vector<Datatype> children = import_children(c.types);
  const bool L = c.is_large();
  const auto& I = c.ints;
  const auto& A = c.addrs;
  const auto& C = c.large;
  switch (c.combiner) {
    case MPI_COMBINER_DUP:
      return dup(children[0]);
    case MPI_COMBINER_CONTIGUOUS:
      return contiguous(L ? C[0] : I[0], children[0]);
    case MPI_COMBINER_VECTOR:
      return L ? vector(C[0], C[1], C[2], children[0]) : vector(I[0], I[1], I[2], children[0]);
    case MPI_COMBINER_HVECTOR:
      return L ? hvector(C[0], C[1], C[2], children[0]) : hvector(I[0], I[1], A[0], children[0]);
    case MPI_COMBINER_INDEXED: {
      const std::size_t n = L ? C[0] : I[0];
      return L ? indexed(slice(C, 1, n), slice(C, 1 + n, n), children[0])
               : indexed(slice(I, 1, n), slice(I, 1 + n, n), children[0]);
    }
    case MPI_COMBINER_HINDEXED: {
      const std::size_t n = L ? C[0] : I[0];
      return L ? hindexed(slice(C, 1, n), slice(C, 1 + n, n), children[0])
               : hindexed(slice(I, 1, n), slice(A, 0, n), children[0]);
    }
    case MPI_COMBINER_INDEXED_BLOCK: {
      const std::size_t n = L ? C[0] : I[0];
      return L ? indexed_block(C[1], slice(C, 2, n), children[0]) : indexed_block(I[1], slice(I, 2, n), children[0]);
    }
    case MPI_COMBINER_HINDEXED_BLOCK: {
      const std::size_t n = L ? C[0] : I[0];
      return L ? hindexed_block(C[1], slice(C, 2, n), children[0]) : hindexed_block(I[1], slice(A, 0, n), children[0]);
    }
    case MPI_COMBINER_SUBARRAY: {
      const std::size_t d = I[0];
      const int order = L ? I[1] : I[1 + 3 * d];
      const Order o = order == MPI_ORDER_C ? Order::C : Order::Fortran;
      return L ? subarray(slice(C, 0, d), slice(C, d, d), slice(C, 2 * d, d), o, children[0])
               : subarray(slice(I, 1, d), slice(I, 1 + d, d), slice(I, 1 + 2 * d, d), o, children[0]);
    }
    case MPI_COMBINER_STRUCT: {
      const std::size_t n = L ? C[0] : I[0];
      return L ? struct_type(slice(C, 1, n), slice(C, 1 + n, n), children)
               : struct_type(slice(I, 1, n), slice(A, 0, n), children);
    }
    case MPI_COMBINER_RESIZED:
      return L ? resized(children[0], C[0], C[1]) : resized(children[0], A[0], A[1]);
    case MPI_COMBINER_DARRAY:
      return darray_from_contents(c, children[0]);
    default:
      break;
  }
  throw_error(ErrorCode::Unsupported, where, "type",
              "uses MPI combiner " + std::to_string(c.combiner) +
                  " (a Fortran-90 parameterized type), which KokkosDDT does not import");
}

}  // namespace

Datatype from_mpi(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL)
    throw_error(ErrorCode::NullDatatype, "KokkosDDT::mpi::from_mpi", "type", "is MPI_DATATYPE_NULL");
  const Datatype t = import_type(type);
  return t.combiner() == Combiner::Named ? t : with_mpi_bounds(t, type);
}

}  // namespace KokkosDDT::mpi
