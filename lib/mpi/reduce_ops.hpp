// Reduction operations (MPI_Op): the predefined ones for the predefined
// datatypes they are defined on (MPI 3.1 §5.9.2), and user functions from
// MPI_Op_create. An operation combines in place: inout[i] = in[i] op inout[i].
#pragma once

#include <mpi.h>

#include <string>

#include "coll/combine.hpp"

namespace mpf::mpi {

// Empty when `op` may combine `datatype`, else why not ("MPI_SUM is not
// defined for MPI_BYTE", "invalid operation 99").
std::string op_problem(MPI_Op op, MPI_Datatype datatype);
bool op_is_commutative(MPI_Op op);
// A reduction's arguments: `op` may combine `count` elements of `type`.
// Predefined operations work on the basic type a derived type is made of
// (*element, *elements of it); user operations get the program's own type.
// MPI_SUCCESS, or the error class after the handler returned.
int check_op(const char* call, MPI_Comm comm, MPI_Op op, MPI_Datatype type, int count, MPI_Datatype* element,
             int* elements);
// `op` on elements of `element` (op_problem() empty) as the collective
// algorithms combine them (coll/combine.hpp): a user operation calls back
// its function with `element`.
mpf::coll::Combine combine_of(MPI_Op op, MPI_Datatype element);
// inout[i] = in[i] op inout[i] for `count` elements (op_problem() empty).
void apply_op(MPI_Op op, const void* in, void* inout, int count, MPI_Datatype datatype);
// out[i] = a[i] op b[i], for a combination whose right operand is read in
// place (this rank's input) and must not change: one pass instead of a copy
// of b into out and apply_op. `out` may be `b`; otherwise it overlaps
// neither.
void apply_op_into(MPI_Op op, const void* a, const void* b, void* out, int count, MPI_Datatype datatype);
std::string op_name(MPI_Op op);

}  // namespace mpf::mpi
