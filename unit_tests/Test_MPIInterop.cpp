// SPDX-License-Identifier: BSD-3-Clause
// MPI_Datatype import/export: round trips keep layout and properties, classic (int-count) MPI types import, and what
// cannot be imported says so.
#include "support/Catch.hpp"
#include "support/MpiOracle.hpp"
#include "support/RandomTypes.hpp"
#include "support/Reference.hpp"

using namespace KokkosDDT;

TEST_CASE("mpi: export then import keeps every property and the layout", "[mpi]") {
  // Exact round trips rely on MPICH handing back one handle for fields that share a type (struct padding).
  if (!Test::mpi_is_reference()) return;
  Test::TypeGenerator gen(31337);
  for (int i = 0; i < Test::scaled(500); ++i) {
    Datatype t = gen.next().type;
    MPI_Datatype m = KokkosDDT::mpi::to_mpi(t);
    Datatype back = KokkosDDT::mpi::from_mpi(m);
    MPI_Type_free(&m);
    INFO(t.describe() << " -> " << back.describe());
    // A named primitive comes back as a dup of it (to_mpi hands out a handle the caller may free).
    CHECK(back.combiner() == (t.combiner() == Combiner::Named ? Combiner::Dup : t.combiner()));
    CHECK(back.size() == t.size());
    CHECK(back.lb() == t.lb());
    CHECK(back.extent() == t.extent());
    CHECK(back.true_lb() == t.true_lb());
    CHECK(back.signature() == t.signature());
    auto a = Test::flatten(t, 2), b = Test::flatten(back, 2);
    REQUIRE(a.size() == b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      CHECK(a[k].offset == b[k].offset);
      CHECK(a[k].length == b[k].length);
    }
  }
}

TEST_CASE("mpi: classic MPI constructors import", "[mpi]") {
  MPI_Datatype v, s, sub, idx;
  MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &v);
  int bl[2] = {1, 2};
  MPI_Aint disp[2] = {0, 16};
  MPI_Datatype types[2] = {MPI_INT, v};
  MPI_Type_create_struct(2, bl, disp, types, &s);
  int sizes[2] = {4, 5}, subs[2] = {2, 2}, starts[2] = {1, 1};
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_FLOAT, &sub);
  int ibl[3] = {1, 0, 2}, idisp[3] = {4, 0, -2};
  MPI_Type_indexed(3, ibl, idisp, MPI_SHORT, &idx);
  for (MPI_Datatype m : {v, s, sub, idx}) {
    Datatype t = KokkosDDT::mpi::from_mpi(m);
    MPI_Aint lb, extent;
    int size;
    MPI_Type_get_extent(m, &lb, &extent);
    MPI_Type_size(m, &size);
    INFO(t.describe());
    CHECK(t.size() == size);
    CHECK(t.lb() == lb);
    CHECK(t.extent() == extent);
  }
  CHECK(KokkosDDT::mpi::from_mpi(v).combiner() == Combiner::Vector);
  CHECK(KokkosDDT::mpi::from_mpi(sub).combiner() == Combiner::Subarray);
  for (MPI_Datatype* m : {&v, &s, &sub, &idx}) MPI_Type_free(m);
}

TEST_CASE("mpi: unsupported types and null handles are reported", "[mpi]") {
  CHECK_THROWS_AS(KokkosDDT::mpi::from_mpi(MPI_DATATYPE_NULL), Error);
  try {
    KokkosDDT::mpi::from_mpi(MPI_DOUBLE_INT);
    FAIL("pair types have no KokkosDDT primitive");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
  }
  int gsizes[1] = {8}, distribs[1] = {MPI_DISTRIBUTE_BLOCK}, dargs[1] = {MPI_DISTRIBUTE_DFLT_DARG}, psizes[1] = {2};
  MPI_Datatype darray;
  MPI_Type_create_darray(2, 0, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_DOUBLE, &darray);
  try {
    KokkosDDT::mpi::from_mpi(darray);
    FAIL("darray is not imported");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
  }
  MPI_Type_free(&darray);
  CHECK(KokkosDDT::mpi::to_mpi(Primitive::Double) == MPI_DOUBLE);
}
