// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A micro-app's MPI datatype with where it applies, for MPI_Pack/MPI_Unpack and MPI_Send/MPI_Recv.
#include <mpi.h>

#include <cstdint>

#include "MicroApp.hpp"

namespace ddtbench {

// An MPI datatype applied as a micro-app applies it. MPICH's MPI_Pack rejects MPI_BOTTOM (pmodels/mpich#6410), so an
// absolute type is packed as one hindexed element at a non-null anchor instead.
struct MpiSide {
  MPI_Datatype type = MPI_DATATYPE_NULL, anchored = MPI_DATATYPE_NULL;
  char* origin = nullptr;
  int count = 1;
  MpiSide(MPI_Datatype t, const Origin& o, const Arrays& a) : type(t), origin(o.at(a)), count(int(o.count)) {
    if (o.absolute) {
      static char anchor = 0;
      int one = count;
      MPI_Aint disp = -static_cast<MPI_Aint>(reinterpret_cast<std::intptr_t>(&anchor));
      MPI_Type_create_hindexed(1, &one, &disp, type, &anchored);
      MPI_Type_commit(&anchored);
      origin = &anchor;
      count = 1;
    }
  }
  MpiSide(const MpiSide&) = delete;
  ~MpiSide() {
    if (anchored != MPI_DATATYPE_NULL) MPI_Type_free(&anchored);
    MPI_Type_free(&type);
  }
  MPI_Datatype use() const { return anchored != MPI_DATATYPE_NULL ? anchored : type; }
  void pack(char* buf, std::int64_t bytes) const {
    int pos = 0;
    MPI_Pack(origin, count, use(), buf, static_cast<int>(bytes), &pos, MPI_COMM_SELF);
  }
  void unpack(const char* buf, std::int64_t bytes) const {
    int pos = 0;
    MPI_Unpack(buf, static_cast<int>(bytes), &pos, origin, count, use(), MPI_COMM_SELF);
  }
};

}  // namespace ddtbench
