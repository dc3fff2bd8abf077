// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Datatype.hpp"

#include <sstream>

#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Format.hpp"
#include "KokkosDDT_Signature.hpp"
#include "KokkosDDT_TypeNode.hpp"

namespace KokkosDDT {

using Impl::TypeNode;

const TypeNode& Datatype::impl_node(const char* where) const {
  if (!node_)
    Impl::throw_error(ErrorCode::NullDatatype, where, "type", "is a null datatype (default-constructed or freed)");
  return *node_;
}

std::int64_t Datatype::size() const { return impl_node("KokkosDDT::Datatype::size").size; }
std::int64_t Datatype::extent() const { return impl_node("KokkosDDT::Datatype::extent").extent(); }
std::int64_t Datatype::lb() const { return impl_node("KokkosDDT::Datatype::lb").lb; }
std::int64_t Datatype::ub() const { return impl_node("KokkosDDT::Datatype::ub").ub; }
std::int64_t Datatype::true_lb() const { return impl_node("KokkosDDT::Datatype::true_lb").true_lb; }
std::int64_t Datatype::true_extent() const {
  const TypeNode& n = impl_node("KokkosDDT::Datatype::true_extent");
  return n.true_ub - n.true_lb;
}
std::int64_t Datatype::num_primitives() const {
  return impl_node("KokkosDDT::Datatype::num_primitives").num_primitives;
}
TypeSignature Datatype::signature() const { return impl_node("KokkosDDT::Datatype::signature").signature; }
Combiner Datatype::combiner() const { return impl_node("KokkosDDT::Datatype::combiner").combiner; }

Datatype& Datatype::commit() {
  const TypeNode& n = impl_node("KokkosDDT::Datatype::commit");
  std::lock_guard<std::mutex> lock(n.commit_mutex);
  if (!n.committed) {
    n.committed = Impl::commit_type(n);
    n.committed_fast.store(n.committed.get(), std::memory_order_release);
  }
  return *this;
}

bool Datatype::is_committed() const {
  return node_ && node_->committed_fast.load(std::memory_order_acquire) != nullptr;
}

const Impl::CommittedType& Datatype::impl_committed(const char* where) const {
  const Impl::CommittedType* c = impl_node(where).committed_fast.load(std::memory_order_acquire);
  if (!c)
    Impl::throw_error(ErrorCode::NotCommitted, where, "type",
                      "was not committed; call commit() on it before packing or unpacking");
  return *c;
}

// Rendered on demand (diagnostics): formatting it at every commit cost more than the commit of a small type.
std::string Datatype::layout() const {
  (void)impl_committed("KokkosDDT::Datatype::layout");
  return Impl::normalized_layout(*node_);
}

namespace {

void list(std::ostream& os, const std::vector<std::int64_t>& v) { Impl::write_list(os, v, ", "); }

void describe(std::ostream& os, const TypeNode& n) {
  switch (n.combiner) {
    case Combiner::Named:
      os << Impl::primitive_name(n.primitive);
      if (n.primitive == Primitive::Opaque) os << "<" << n.size << "B>";
      return;
    case Combiner::Dup:
      os << "dup(";
      break;
    case Combiner::Contiguous:
      os << "contiguous(" << n.count << ", ";
      break;
    case Combiner::Vector:
      os << "vector(" << n.count << ", " << n.blocklength << ", " << n.stride << ", ";
      break;
    case Combiner::Hvector:
      os << "hvector(" << n.count << ", " << n.blocklength << ", " << n.stride << "B, ";
      break;
    case Combiner::Indexed:
    case Combiner::Hindexed:
      os << (n.combiner == Combiner::Indexed ? "indexed(" : "hindexed(");
      list(os, n.blocklengths);
      os << ", ";
      list(os, n.displacements);
      os << ", ";
      break;
    case Combiner::IndexedBlock:
    case Combiner::HindexedBlock:
      os << (n.combiner == Combiner::IndexedBlock ? "indexed_block(" : "hindexed_block(") << n.blocklength << ", ";
      list(os, n.displacements);
      os << ", ";
      break;
    case Combiner::Subarray:
      os << "subarray(";
      list(os, n.sizes);
      os << ", ";
      list(os, n.subsizes);
      os << ", ";
      list(os, n.starts);
      os << (n.order == Order::C ? ", C, " : ", Fortran, ");
      break;
    case Combiner::Struct:
      os << "struct(";
      for (std::size_t i = 0; i < n.children.size(); ++i) {
        os << (i ? ", " : "") << n.blocklengths[i] << " x ";
        describe(os, n.child(i));
        os << " @" << n.displacements[i];
      }
      os << ")";
      return;
    case Combiner::Resized:
      os << "resized(lb " << n.resized_lb << ", extent " << n.resized_extent << ", ";
      break;
  }
  describe(os, n.child());
  os << ")";
}

}  // namespace

std::string Datatype::describe() const {
  if (!node_) return "null";
  std::ostringstream os;
  KokkosDDT::describe(os, *node_);
  os << " {size " << node_->size << ", lb " << node_->lb << ", extent " << node_->extent() << "}";
  return os.str();
}

bool signatures_match(const Datatype& a, std::int64_t count_a, const Datatype& b, std::int64_t count_b) {
  const char* where = "KokkosDDT::signatures_match";
  Impl::require_nonnegative(count_a, where, "count_a");
  Impl::require_nonnegative(count_b, where, "count_b");
  return Impl::repeat(a.impl_node(where).signature, count_a) == Impl::repeat(b.impl_node(where).signature, count_b);
}

}  // namespace KokkosDDT
