// Reduction operations (MPI_Op): the predefined ones for the predefined
// datatypes they are defined on (MPI 3.1 §5.9.2), and user functions from
// MPI_Op_create. An operation combines in place: inout[i] = in[i] op inout[i].
#pragma once

#include <mpi.h>

#include <string>

namespace mpf::mpi::coll {

// Empty when `op` may combine `datatype`, else why not ("MPI_SUM is not
// defined for MPI_BYTE", "invalid operation 99").
std::string op_problem(MPI_Op op, MPI_Datatype datatype);
bool op_is_commutative(MPI_Op op);
// inout[i] = in[i] op inout[i] for `count` elements (op_problem() empty).
void apply_op(MPI_Op op, const void* in, void* inout, int count, MPI_Datatype datatype);
std::string op_name(MPI_Op op);

}  // namespace mpf::mpi::coll
