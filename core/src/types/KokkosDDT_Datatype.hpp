// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Datatype: a handle to an immutable MPI-style type description. Copies share one description (like copies of an
// MPI_Datatype value); commit() marks that description ready for pack/unpack; free() turns this handle null while
// types built from it stay valid (MPI semantics).

#include <cstdint>
#include <memory>
#include <string>

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT {

// How a type was built (MPI_Type_get_envelope's combiner).
enum class Combiner {
  Named,
  Dup,
  Contiguous,
  Vector,
  Hvector,
  Indexed,
  Hindexed,
  IndexedBlock,
  HindexedBlock,
  Subarray,
  Struct,
  Resized
};

// The named primitive types. Opaque stands for any trivially copyable T handled by its size (its signature is
// sizeof(T) bytes).
enum class Primitive : std::uint8_t {
  Byte,
  Char,
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float,
  Double,
  ComplexFloat,
  ComplexDouble,
  Opaque
};

enum class Order { C, Fortran };  // subarray storage order: C = last index fastest

// The type signature: the sequence of primitives a type sends, as a 61-bit polynomial hash plus its length. Hashes
// compose (concatenation and repetition in O(log count)), so computing one is linear in the type's description.
struct TypeSignature {
  std::uint64_t hash = 0;
  std::int64_t length = 0;  // number of primitives (an Opaque T counts sizeof(T) bytes)
  friend bool operator==(const TypeSignature& a, const TypeSignature& b) {
    return a.hash == b.hash && a.length == b.length;
  }
  friend bool operator!=(const TypeSignature& a, const TypeSignature& b) { return !(a == b); }
};

namespace Impl {
struct TypeNode;
struct CommittedType;
}  // namespace Impl

class Datatype {
 public:
  Datatype() = default;  // the null type
  explicit Datatype(std::shared_ptr<const Impl::TypeNode> node) : node_(std::move(node)) {}

  bool is_null() const noexcept { return node_ == nullptr; }
  explicit operator bool() const noexcept { return !is_null(); }

  // MPI_Type_size, MPI_Type_get_extent, MPI_Type_get_true_extent. All in bytes; lb/true_lb may be negative.
  std::int64_t size() const;
  std::int64_t extent() const;
  std::int64_t lb() const;
  std::int64_t ub() const;
  std::int64_t true_lb() const;
  std::int64_t true_extent() const;
  std::int64_t num_primitives() const;  // primitives in one instance (Opaque T counts as one)
  TypeSignature signature() const;
  Combiner combiner() const;
  std::string describe() const;  // the constructor tree, for humans
  // The normalized layout commit() made of one instance, for humans, e.g. "strided(x=800,n=100,s=640,8B)".
  // Throws NotCommitted before commit().
  std::string layout() const;

  // Normalizes and serializes the description (idempotent, thread-safe). Required before pack/unpack.
  Datatype& commit();
  bool is_committed() const;
  // Turns this handle null. Other handles to the same type, and types built from it, stay valid.
  void free() noexcept { node_.reset(); }

  // Same description (not structural equality: two separately built vectors are different types).
  friend bool operator==(const Datatype& a, const Datatype& b) { return a.node_ == b.node_; }
  friend bool operator!=(const Datatype& a, const Datatype& b) { return !(a == b); }

  // Internals for KokkosDDT's own layers (commit, pack, mpi/, tests), not part of the API. Throws NullDatatype on a
  // null handle.
  const Impl::TypeNode& impl_node(const char* where = "KokkosDDT::Datatype") const;
  const std::shared_ptr<const Impl::TypeNode>& impl_node_ptr() const noexcept { return node_; }
  // The committed form, valid while this type lives; throws NotCommitted if commit() was not called.
  const Impl::CommittedType& impl_committed(const char* where) const;

 private:
  std::shared_ptr<const Impl::TypeNode> node_;
};

// True when `count_a` instances of `a` carry the same primitive sequence as `count_b` instances of `b`
// (MPI's type-matching rule for a send and its receive).
bool signatures_match(const Datatype& a, std::int64_t count_a, const Datatype& b, std::int64_t count_b);

}  // namespace KokkosDDT
