/*
 * datatype_chapter: the parts of the MPI-3.1 datatype chapter issue 29 added.
 *
 *   - decoding: MPI_Type_get_envelope and MPI_Type_get_contents for every
 *     combiner, each returned integer, address and datatype compared with
 *     what the constructor was given; derived inputs come back as new
 *     handles (freed here), predefined ones as themselves, also after the
 *     program freed the input; every type is then rebuilt from its decoding
 *     alone and must pack the same bytes;
 *   - MPI_Type_create_darray: block, cyclic and undistributed dimensions,
 *     both orders, each element checked against a hand computation of the
 *     standard's cyclic() rule through MPI_Pack and MPI_Unpack, and an array
 *     scattered and gathered with darray types between the ranks;
 *   - MPI_Type_match_size and MPI_Type_create_f90_integer, _real, _complex;
 *   - the Fortran and C++ predefined datatypes: sizes, names, SUM, PROD,
 *     logical operations, MINLOC/MAXLOC on the Fortran pairs, external32;
 *   - handle conversion (MPI_*_c2f, MPI_*_f2c) and the Fortran status;
 *   - the error classes of bad arguments (MPI_ERR_TYPE, MPI_ERR_ARG, MPI_ERR_OP).
 *
 *   datatype_chapter   (any number of ranks)
 */
#include <float.h>
#include <stdbool.h>
#include <stddef.h>

#include "mpitest.h"

/* IEEE quadruple precision, MPI_REAL16's C type with GCC. */
__extension__ typedef __float128 quad;

static int rank, size;

/* ---------------------------------------------------------------- helpers */

static int is_predefined(MPI_Datatype t) {
  int ni, na, nd, combiner;
  CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
  return combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX ||
         combiner == MPI_COMBINER_F90_INTEGER;
}

/* A handle MPI_Type_get_contents returned: freed unless predefined. */
static void release(MPI_Datatype t) {
  if (!is_predefined(t)) CHECK_RC(MPI_Type_free(&t));
}

/* Packs 2 elements of `a` and of `b` from the same patterned memory and
   checks size, bounds and the packed bytes agree. */
static void expect_same_layout(MPI_Datatype a, MPI_Datatype b, const char *what) {
  enum { SPAN = 8192 };
  static unsigned char memory[2 * SPAN];
  static unsigned char pa[SPAN], pb[SPAN];
  int sa, sb;
  MPI_Aint lba, exa, lbb, exb, tlba, texa, tlbb, texb;
  CHECK_RC(MPI_Type_size(a, &sa));
  CHECK_RC(MPI_Type_size(b, &sb));
  CHECK_RC(MPI_Type_get_extent(a, &lba, &exa));
  CHECK_RC(MPI_Type_get_extent(b, &lbb, &exb));
  CHECK_RC(MPI_Type_get_true_extent(a, &tlba, &texa));
  CHECK_RC(MPI_Type_get_true_extent(b, &tlbb, &texb));
  CHECK(sa == sb && lba == lbb && exa == exb && tlba == tlbb && texa == texb,
        "%s: size %d/%d lb %ld/%ld extent %ld/%ld true lb %ld/%ld true extent %ld/%ld", what, sa, sb, (long)lba,
        (long)lbb, (long)exa, (long)exb, (long)tlba, (long)tlbb, (long)texa, (long)texb);
  CHECK(2 * sa <= SPAN && tlba > -SPAN / 2 && tlba + exa + texa < SPAN, "%s: too large for the test", what);
  for (int i = 0; i < 2 * SPAN; ++i) memory[i] = (unsigned char)(i * 7 + i / 256);
  MPI_Datatype ca = a, cb = b;
  CHECK_RC(MPI_Type_dup(a, &ca));
  CHECK_RC(MPI_Type_dup(b, &cb));
  CHECK_RC(MPI_Type_commit(&ca));
  CHECK_RC(MPI_Type_commit(&cb));
  int posa = 0, posb = 0;
  CHECK_RC(MPI_Pack(memory + SPAN, 2, ca, pa, SPAN, &posa, MPI_COMM_SELF));
  CHECK_RC(MPI_Pack(memory + SPAN, 2, cb, pb, SPAN, &posb, MPI_COMM_SELF));
  CHECK(posa == posb && posa == 2 * sa, "%s: packed %d and %d bytes, expected %d", what, posa, posb, 2 * sa);
  for (int i = 0; i < posa; ++i) CHECK(pa[i] == pb[i], "%s: packed byte %d differs (0x%02x, 0x%02x)", what, i, pa[i], pb[i]);
  CHECK_RC(MPI_Type_free(&ca));
  CHECK_RC(MPI_Type_free(&cb));
}

/* Checks the envelope and contents of `t` against what built it. A
   predefined datatype argument must come back as itself; a derived one
   as a new handle laid out like the original, which is freed here. */
static void expect_contents(MPI_Datatype t, int combiner, int ni, const int *ints, int na, const MPI_Aint *addrs, int nd,
                            const MPI_Datatype *types, const char *what) {
  int gi = -1, ga = -1, gd = -1, gc = -1;
  CHECK_RC(MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc));
  CHECK(gc == combiner && gi == ni && ga == na && gd == nd,
        "%s: envelope combiner %d ni %d na %d nd %d, expected %d %d %d %d", what, gc, gi, ga, gd, combiner, ni, na, nd);
  if (combiner == MPI_COMBINER_NAMED) return; /* no contents to read */
  int got_ints[64];
  MPI_Aint got_addrs[64];
  MPI_Datatype got_types[64];
  CHECK_RC(MPI_Type_get_contents(t, 64, 64, 64, got_ints, got_addrs, got_types));
  for (int i = 0; i < ni; ++i) CHECK(got_ints[i] == ints[i], "%s: integer %d is %d, expected %d", what, i, got_ints[i], ints[i]);
  for (int i = 0; i < na; ++i) {
    CHECK(got_addrs[i] == addrs[i], "%s: address %d is %ld, expected %ld", what, i, (long)got_addrs[i], (long)addrs[i]);
  }
  for (int i = 0; i < nd; ++i) {
    if (is_predefined(types[i])) {
      CHECK(got_types[i] == types[i], "%s: datatype %d is %d, expected the predefined %d", what, i, got_types[i], types[i]);
    } else {
      CHECK(got_types[i] != types[i] && got_types[i] != MPI_DATATYPE_NULL,
            "%s: datatype %d is %d, expected a new handle for derived %d", what, i, got_types[i], types[i]);
      expect_same_layout(got_types[i], types[i], what);
      CHECK_RC(MPI_Type_free(&got_types[i]));
    }
  }
}

/* Builds a new type from `t`'s decoding alone (recursively). */
static MPI_Datatype rebuild(MPI_Datatype t) {
  int ni, na, nd, combiner;
  CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
  if (combiner == MPI_COMBINER_NAMED) return t;
  int *I = mt_alloc((size_t)ni * sizeof *I);
  MPI_Aint *A = mt_alloc((size_t)na * sizeof *A);
  MPI_Datatype *D = mt_alloc((size_t)nd * sizeof *D), *R = mt_alloc((size_t)nd * sizeof *R);
  CHECK_RC(MPI_Type_get_contents(t, ni, na, nd, I, A, D));
  for (int k = 0; k < nd; ++k) R[k] = rebuild(D[k]);
  MPI_Datatype out = MPI_DATATYPE_NULL;
  switch (combiner) {
    case MPI_COMBINER_DUP: CHECK_RC(MPI_Type_dup(R[0], &out)); break;
    case MPI_COMBINER_CONTIGUOUS: CHECK_RC(MPI_Type_contiguous(I[0], R[0], &out)); break;
    case MPI_COMBINER_VECTOR: CHECK_RC(MPI_Type_vector(I[0], I[1], I[2], R[0], &out)); break;
    case MPI_COMBINER_HVECTOR: CHECK_RC(MPI_Type_create_hvector(I[0], I[1], A[0], R[0], &out)); break;
    case MPI_COMBINER_INDEXED: CHECK_RC(MPI_Type_indexed(I[0], I + 1, I + 1 + I[0], R[0], &out)); break;
    case MPI_COMBINER_HINDEXED: CHECK_RC(MPI_Type_create_hindexed(I[0], I + 1, A, R[0], &out)); break;
    case MPI_COMBINER_INDEXED_BLOCK: CHECK_RC(MPI_Type_create_indexed_block(I[0], I[1], I + 2, R[0], &out)); break;
    case MPI_COMBINER_HINDEXED_BLOCK: CHECK_RC(MPI_Type_create_hindexed_block(I[0], I[1], A, R[0], &out)); break;
    case MPI_COMBINER_STRUCT: CHECK_RC(MPI_Type_create_struct(I[0], I + 1, A, R, &out)); break;
    case MPI_COMBINER_SUBARRAY: {
      const int n = I[0];
      CHECK_RC(MPI_Type_create_subarray(n, I + 1, I + 1 + n, I + 1 + 2 * n, I[1 + 3 * n], R[0], &out));
      break;
    }
    case MPI_COMBINER_DARRAY: {
      const int n = I[2];
      CHECK_RC(MPI_Type_create_darray(I[0], I[1], n, I + 3, I + 3 + n, I + 3 + 2 * n, I + 3 + 3 * n, I[3 + 4 * n], R[0],
                                      &out));
      break;
    }
    case MPI_COMBINER_F90_REAL: CHECK_RC(MPI_Type_create_f90_real(I[0], I[1], &out)); break;
    case MPI_COMBINER_F90_COMPLEX: CHECK_RC(MPI_Type_create_f90_complex(I[0], I[1], &out)); break;
    case MPI_COMBINER_F90_INTEGER: CHECK_RC(MPI_Type_create_f90_integer(I[0], &out)); break;
    case MPI_COMBINER_RESIZED: CHECK_RC(MPI_Type_create_resized(R[0], A[0], A[1], &out)); break;
    default: CHECK(0, "unknown combiner %d", combiner);
  }
  for (int k = 0; k < nd; ++k) {
    release(R[k]);
    release(D[k]);
  }
  free(I);
  free(A);
  free(D);
  free(R);
  return out;
}

static void expect_rebuilds(MPI_Datatype t, const char *what) {
  MPI_Datatype again = rebuild(t);
  expect_same_layout(t, again, what);
  release(again);
}

/* --------------------------------------------------------------- decoding */

static void decoding(void) {
  /* Named predefined types: MPI_COMBINER_NAMED, and no contents. */
  const MPI_Datatype named[] = {MPI_INT, MPI_DOUBLE_INT, MPI_INTEGER, MPI_2REAL, MPI_COMPLEX32, MPI_CXX_BOOL};
  for (size_t k = 0; k < sizeof named / sizeof named[0]; ++k) {
    expect_contents(named[k], MPI_COMBINER_NAMED, 0, NULL, 0, NULL, 0, NULL, "named");
  }
  int i1[1];
  MPI_Aint a1[1];
  MPI_Datatype d1[1];
  CHECK_CLASS(MPI_Type_get_contents(MPI_INT, 1, 1, 1, i1, a1, d1), MPI_ERR_TYPE);

  MPI_Datatype vec, t;
  {
    CHECK_RC(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
    const int ints[] = {3, 2, 4};
    const MPI_Datatype types[] = {MPI_INT};
    expect_contents(vec, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, types, "vector");
    expect_rebuilds(vec, "vector rebuilt");
  }
  {
    CHECK_RC(MPI_Type_dup(MPI_DOUBLE, &t));
    const MPI_Datatype types[] = {MPI_DOUBLE};
    expect_contents(t, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, types, "dup of MPI_DOUBLE");
    MPI_Datatype t2;
    CHECK_RC(MPI_Type_dup(vec, &t2));
    const MPI_Datatype types2[] = {vec};
    expect_contents(t2, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, types2, "dup of a vector");
    CHECK_RC(MPI_Type_free(&t2));
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    CHECK_RC(MPI_Type_contiguous(5, vec, &t));
    const int ints[] = {5};
    const MPI_Datatype types[] = {vec};
    expect_contents(t, MPI_COMBINER_CONTIGUOUS, 1, ints, 0, NULL, 1, types, "contiguous of a vector");
    expect_rebuilds(t, "contiguous rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    CHECK_RC(MPI_Type_create_hvector(3, 2, 40, MPI_FLOAT, &t));
    const int ints[] = {3, 2};
    const MPI_Aint addrs[] = {40};
    const MPI_Datatype types[] = {MPI_FLOAT};
    expect_contents(t, MPI_COMBINER_HVECTOR, 2, ints, 1, addrs, 1, types, "hvector");
    expect_rebuilds(t, "hvector rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    const int lens[] = {1, 2, 3}, displs[] = {0, 4, 9};
    CHECK_RC(MPI_Type_indexed(3, lens, displs, MPI_SHORT, &t));
    const int ints[] = {3, 1, 2, 3, 0, 4, 9};
    const MPI_Datatype types[] = {MPI_SHORT};
    expect_contents(t, MPI_COMBINER_INDEXED, 7, ints, 0, NULL, 1, types, "indexed");
    expect_rebuilds(t, "indexed rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    const int lens[] = {2, 1};
    const MPI_Aint displs[] = {0, 24};
    CHECK_RC(MPI_Type_create_hindexed(2, lens, displs, MPI_DOUBLE, &t));
    const int ints[] = {2, 2, 1};
    const MPI_Datatype types[] = {MPI_DOUBLE};
    expect_contents(t, MPI_COMBINER_HINDEXED, 3, ints, 2, displs, 1, types, "hindexed");
    expect_rebuilds(t, "hindexed rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    const int displs[] = {1, 5, 9};
    CHECK_RC(MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &t));
    const int ints[] = {3, 2, 1, 5, 9};
    const MPI_Datatype types[] = {MPI_INT};
    expect_contents(t, MPI_COMBINER_INDEXED_BLOCK, 5, ints, 0, NULL, 1, types, "indexed_block");
    expect_rebuilds(t, "indexed_block rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    const MPI_Aint displs[] = {8, 64};
    CHECK_RC(MPI_Type_create_hindexed_block(2, 3, displs, MPI_CHAR, &t));
    const int ints[] = {2, 3};
    const MPI_Datatype types[] = {MPI_CHAR};
    expect_contents(t, MPI_COMBINER_HINDEXED_BLOCK, 2, ints, 2, displs, 1, types, "hindexed_block");
    expect_rebuilds(t, "hindexed_block rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    const int lens[] = {1, 2, 1};
    const MPI_Aint displs[] = {0, 8, 24};
    const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, vec};
    CHECK_RC(MPI_Type_create_struct(3, lens, displs, types, &t));
    const int ints[] = {3, 1, 2, 1};
    expect_contents(t, MPI_COMBINER_STRUCT, 4, ints, 3, displs, 3, types, "struct");
    expect_rebuilds(t, "struct rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    const int sizes[] = {4, 6}, subsizes[] = {2, 3}, starts[] = {1, 2};
    CHECK_RC(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
    const int ints[] = {2, 4, 6, 2, 3, 1, 2, MPI_ORDER_C};
    const MPI_Datatype types[] = {MPI_INT};
    expect_contents(t, MPI_COMBINER_SUBARRAY, 8, ints, 0, NULL, 1, types, "subarray");
    expect_rebuilds(t, "subarray rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    const int gsizes[] = {8, 6}, distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
              dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[] = {2, 2};
    CHECK_RC(MPI_Type_create_darray(4, 1, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, vec, &t));
    const int ints[] = {4, 1, 2, 8, 6, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2,
                        MPI_ORDER_FORTRAN};
    const MPI_Datatype types[] = {vec};
    expect_contents(t, MPI_COMBINER_DARRAY, 12, ints, 0, NULL, 1, types, "darray");
    expect_rebuilds(t, "darray rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    CHECK_RC(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
    const MPI_Aint addrs[] = {-4, 16};
    const MPI_Datatype types[] = {MPI_INT};
    expect_contents(t, MPI_COMBINER_RESIZED, 0, NULL, 2, addrs, 1, types, "resized");
    expect_rebuilds(t, "resized rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    /* The f90 types: predefined, unnamed, one handle per (p, r). */
    MPI_Datatype r1, r2, c1, n1;
    CHECK_RC(MPI_Type_create_f90_real(10, 100, &r1));
    CHECK_RC(MPI_Type_create_f90_real(10, 100, &r2));
    CHECK(r1 == r2, "MPI_Type_create_f90_real(10, 100) gave %d, then %d", r1, r2);
    const int rints[] = {10, 100};
    expect_contents(r1, MPI_COMBINER_F90_REAL, 2, rints, 0, NULL, 0, NULL, "f90 real");
    CHECK_RC(MPI_Type_create_f90_complex(5, MPI_UNDEFINED, &c1));
    const int cints[] = {5, MPI_UNDEFINED};
    expect_contents(c1, MPI_COMBINER_F90_COMPLEX, 2, cints, 0, NULL, 0, NULL, "f90 complex");
    CHECK_RC(MPI_Type_create_f90_integer(5, &n1));
    const int nints[] = {5};
    expect_contents(n1, MPI_COMBINER_F90_INTEGER, 1, nints, 0, NULL, 0, NULL, "f90 integer");
    int s;
    CHECK_RC(MPI_Type_size(r1, &s));
    CHECK(s == 8, "f90 real (10, 100) has %d bytes, expected 8", s);
    CHECK_RC(MPI_Type_size(c1, &s));
    CHECK(s == 8, "f90 complex (5, -) has %d bytes, expected 8", s);
    CHECK_RC(MPI_Type_size(n1, &s));
    CHECK(s == 4, "f90 integer (5) has %d bytes, expected 4", s);
    CHECK_CLASS(MPI_Type_free(&r1), MPI_ERR_TYPE);
    /* A dup of one is derived and names it as its input. */
    CHECK_RC(MPI_Type_dup(r1, &t));
    const MPI_Datatype types[] = {r1};
    expect_contents(t, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, types, "dup of an f90 real");
    expect_rebuilds(t, "dup of an f90 real rebuilt");
    CHECK_RC(MPI_Type_free(&t));
    /* An f90 type inside a struct: handed back as itself. */
    const int lens[] = {2, 1};
    const MPI_Aint displs[] = {0, 16};
    const MPI_Datatype parts[] = {r1, n1};
    CHECK_RC(MPI_Type_create_struct(2, lens, displs, parts, &t));
    const int sints[] = {2, 2, 1};
    expect_contents(t, MPI_COMBINER_STRUCT, 3, sints, 2, displs, 2, parts, "struct of f90 types");
    expect_rebuilds(t, "struct of f90 types rebuilt");
    CHECK_RC(MPI_Type_free(&t));
  }
  {
    /* Inputs are kept by value: decoding works after the input was freed. */
    MPI_Datatype inner, outer, got[1];
    CHECK_RC(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &inner));
    CHECK_RC(MPI_Type_contiguous(3, inner, &outer));
    CHECK_RC(MPI_Type_free(&inner));
    int ints[1];
    CHECK_RC(MPI_Type_get_contents(outer, 1, 0, 1, ints, NULL, got));
    int ni, na, nd, combiner;
    CHECK_RC(MPI_Type_get_envelope(got[0], &ni, &na, &nd, &combiner));
    CHECK(combiner == MPI_COMBINER_VECTOR && ni == 3 && nd == 1, "freed input decodes as combiner %d ni %d nd %d",
          combiner, ni, nd);
    int vints[3];
    MPI_Datatype vtypes[1];
    CHECK_RC(MPI_Type_get_contents(got[0], 3, 0, 1, vints, NULL, vtypes));
    CHECK(vints[0] == 2 && vints[1] == 1 && vints[2] == 3 && vtypes[0] == MPI_DOUBLE, "freed input's contents %d %d %d %d",
          vints[0], vints[1], vints[2], vtypes[0]);
    expect_rebuilds(outer, "type with a freed input rebuilt");
    CHECK_RC(MPI_Type_free(&got[0]));
    CHECK_RC(MPI_Type_free(&outer));
  }
  /* Errors: arrays too short, bad handles. */
  CHECK_CLASS(MPI_Type_get_contents(vec, 2, 0, 1, i1, a1, d1), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_get_contents(vec, 3, 0, 0, i1, a1, d1), MPI_ERR_ARG);
  int e1, e2, e3, e4;
  CHECK_CLASS(MPI_Type_get_envelope(MPI_DATATYPE_NULL, &e1, &e2, &e3, &e4), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_get_envelope(99999, &e1, &e2, &e3, &e4), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_get_contents(99999, 1, 1, 1, i1, a1, d1), MPI_ERR_TYPE);
  CHECK_RC(MPI_Type_free(&vec));
}

/* ----------------------------------------------------------------- darray */

typedef struct {
  int ndims;
  int gsizes[3], distribs[3], dargs[3], psizes[3];
  int order;
} Darray;

/* The block length of dimension d in the standard's cyclic() form. */
static int block_of(const Darray *a, int d) {
  const int g = a->gsizes[d], p = a->psizes[d], darg = a->dargs[d];
  switch (a->distribs[d]) {
    case MPI_DISTRIBUTE_NONE: return g;
    case MPI_DISTRIBUTE_BLOCK: return darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    default: return darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  }
}

static int elements_of(const Darray *a) {
  int n = 1;
  for (int d = 0; d < a->ndims; ++d) n *= a->gsizes[d];
  return n;
}

/* The storage (linear) indices grid rank `r` owns, ascending: the order of
   its typemap. Returns how many. */
static int owned_indices(const Darray *a, int r, int *out) {
  int coords[3] = {0, 0, 0}, rest = r;
  for (int d = a->ndims - 1; d >= 0; --d) {
    coords[d] = rest % a->psizes[d];
    rest /= a->psizes[d];
  }
  int n = 0;
  for (int linear = 0; linear < elements_of(a); ++linear) {
    int index[3] = {0, 0, 0}, rem = linear, mine = 1;
    for (int k = 0; k < a->ndims; ++k) {
      const int d = a->order == MPI_ORDER_FORTRAN ? k : a->ndims - 1 - k;
      index[d] = rem % a->gsizes[d];
      rem /= a->gsizes[d];
    }
    for (int d = 0; d < a->ndims; ++d) {
      if ((index[d] / block_of(a, d)) % a->psizes[d] != coords[d]) mine = 0;
    }
    if (mine) out[n++] = linear;
  }
  return n;
}

static MPI_Datatype make_darray(const Darray *a, int r) {
  int grid = 1;
  for (int d = 0; d < a->ndims; ++d) grid *= a->psizes[d];
  MPI_Datatype t;
  CHECK_RC(MPI_Type_create_darray(grid, r, a->ndims, a->gsizes, a->distribs, a->dargs, a->psizes, a->order, MPI_INT, &t));
  CHECK_RC(MPI_Type_commit(&t));
  return t;
}

/* Every grid position of `a`: its type against the hand computation,
   element by element, through MPI_Pack and MPI_Unpack; together the
   positions cover the array once. */
static void darray_case(const Darray *a, const char *what) {
  enum { MAX = 512 };
  int global[MAX], packed[MAX], unpacked[MAX], want[MAX], seen[MAX] = {0};
  const int n = elements_of(a);
  CHECK(n <= MAX, "%s: too large for the test", what);
  int grid = 1;
  for (int d = 0; d < a->ndims; ++d) grid *= a->psizes[d];
  for (int i = 0; i < n; ++i) global[i] = 10 * i + 7;
  for (int r = 0; r < grid; ++r) {
    const int count = owned_indices(a, r, want);
    MPI_Datatype t = make_darray(a, r);
    int s;
    MPI_Aint lb, extent;
    CHECK_RC(MPI_Type_size(t, &s));
    CHECK_RC(MPI_Type_get_extent(t, &lb, &extent));
    CHECK(s == count * (int)sizeof(int), "%s, rank %d: size %d, expected %d ints", what, r, s, count);
    CHECK(lb == 0 && extent == n * (MPI_Aint)sizeof(int), "%s, rank %d: lb %ld extent %ld, expected 0 and %ld", what, r,
          (long)lb, (long)extent, (long)(n * sizeof(int)));
    int position = 0;
    CHECK_RC(MPI_Pack(global, 1, t, packed, (int)sizeof packed, &position, MPI_COMM_SELF));
    CHECK(position == s, "%s, rank %d: packed %d bytes", what, r, position);
    for (int j = 0; j < count; ++j) {
      CHECK(packed[j] == global[want[j]], "%s, rank %d: packed element %d is %d, expected element %d (%d)", what, r, j,
            packed[j], want[j], global[want[j]]);
      seen[want[j]]++;
    }
    for (int i = 0; i < n; ++i) unpacked[i] = -1;
    for (int j = 0; j < count; ++j) packed[j] = 100000 + j;
    position = 0;
    CHECK_RC(MPI_Unpack(packed, s, &position, unpacked, 1, t, MPI_COMM_SELF));
    for (int i = 0, j = 0; i < n; ++i) {
      const int expect = j < count && want[j] == i ? 100000 + j++ : -1;
      CHECK(unpacked[i] == expect, "%s, rank %d: unpacked element %d is %d, expected %d", what, r, i, unpacked[i], expect);
    }
    CHECK_RC(MPI_Type_free(&t));
  }
  for (int i = 0; i < n; ++i) CHECK(seen[i] == 1, "%s: element %d is owned by %d ranks", what, i, seen[i]);
}

static void darray_layouts(void) {
  const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE, D = MPI_DISTRIBUTE_DFLT_DARG;
  for (int o = 0; o < 2; ++o) {
    const int order = o == 0 ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    const char *on = o == 0 ? "C" : "Fortran";
    char what[128];
    const Darray cases[] = {
        {2, {7, 5}, {B, B}, {D, D}, {2, 2}, order},        /* uneven blocks */
        {2, {9, 6}, {C, C}, {2, D}, {2, 3}, order},        /* cyclic(2) x cyclic(1) */
        {3, {5, 4, 3}, {B, N, C}, {3, 0, 1}, {2, 1, 2}, order},
        {1, {10}, {C}, {3}, {4}, order},                   /* a partial last block */
        {1, {5}, {B}, {D}, {4}, order},                    /* a rank with nothing */
        {2, {6, 8}, {N, B}, {D, 3}, {1, 3}, order},
        {2, {4, 4}, {C, B}, {D, D}, {4, 1}, order},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
      snprintf(what, sizeof what, "darray case %zu, %s order", k, on);
      darray_case(&cases[k], what);
    }
  }
}

/* Rank 0 scatters a global array with the darray type of each rank, and
   gathers it back the same way from each rank's contiguous part. */
static void darray_exchange(void) {
  int psizes[2] = {0, 0};
  CHECK_RC(MPI_Dims_create(size, 2, psizes));
  const Darray a = {2,
                    {10, 7},
                    {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
                    {2, MPI_DISTRIBUTE_DFLT_DARG},
                    {psizes[0], psizes[1]},
                    MPI_ORDER_C};
  enum { N = 70 };
  int global[N], want[N], mine[N];
  const int count = owned_indices(&a, rank, want);
  MPI_Request *requests = mt_alloc((size_t)size * sizeof *requests);
  MPI_Datatype *types = mt_alloc((size_t)size * sizeof *types);
  if (rank == 0) {
    for (int i = 0; i < N; ++i) global[i] = 3 * i + 1;
    for (int r = 0; r < size; ++r) {
      types[r] = make_darray(&a, r);
      CHECK_RC(MPI_Isend(global, 1, types[r], r, 11, MPI_COMM_WORLD, &requests[r]));
    }
  }
  CHECK_RC(MPI_Recv(mine, count, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int j = 0; j < count; ++j) {
    CHECK(mine[j] == 3 * want[j] + 1, "darray scatter: element %d is %d, expected global %d (%d)", j, mine[j], want[j],
          3 * want[j] + 1);
  }
  if (rank == 0) CHECK_RC(MPI_Waitall(size, requests, MPI_STATUSES_IGNORE));
  /* Back: each rank's part, changed, lands where its type says. */
  for (int j = 0; j < count; ++j) mine[j] = -want[j];
  if (rank == 0) {
    for (int i = 0; i < N; ++i) global[i] = 12345;
    for (int r = 0; r < size; ++r) CHECK_RC(MPI_Irecv(global, 1, types[r], r, 12, MPI_COMM_WORLD, &requests[r]));
  }
  CHECK_RC(MPI_Send(mine, count, MPI_INT, 0, 12, MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_RC(MPI_Waitall(size, requests, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; ++i) CHECK(global[i] == -i, "darray gather: element %d is %d, expected %d", i, global[i], -i);
    for (int r = 0; r < size; ++r) CHECK_RC(MPI_Type_free(&types[r]));
  }
  free(requests);
  free(types);
}

static void darray_errors(void) {
  const int g[] = {8, 8}, dist[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
            dfl[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[] = {2, 2};
  MPI_Datatype t;
  CHECK_CLASS(MPI_Type_create_darray(4, 4, 2, g, dist, dfl, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_darray(3, 0, 2, g, dist, dfl, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, dist, dfl, p, 99, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 0, g, dist, dfl, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, dist, dfl, p, MPI_ORDER_C, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  const int small[] = {3, 3}; /* 3 * 2 < 8: the blocks cannot hold the dimension */
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, dist, small, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
  const int bad_dist[] = {MPI_DISTRIBUTE_BLOCK, 7};
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, bad_dist, dfl, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
  const int none[] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, none, dfl, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
  const int cyc[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC}, zero[] = {0, 1};
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, g, cyc, zero, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
  const int neg[] = {8, -1};
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, neg, dist, dfl, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
}

/* The standard's Subarray() puts its lower bound at 0 whatever the old
   type's. */
static void subarray_bounds(void) {
  MPI_Datatype shifted, t;
  CHECK_RC(MPI_Type_create_resized(MPI_INT, -4, 12, &shifted));
  const int sizes[] = {5}, subsizes[] = {2}, starts[] = {1};
  CHECK_RC(MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, shifted, &t));
  MPI_Aint lb, extent, tlb, textent;
  CHECK_RC(MPI_Type_get_extent(t, &lb, &extent));
  CHECK_RC(MPI_Type_get_true_extent(t, &tlb, &textent));
  CHECK(lb == 0 && extent == 60 && tlb == 12 && textent == 16,
        "subarray of a resized int: lb %ld extent %ld true lb %ld true extent %ld, expected 0 60 12 16", (long)lb,
        (long)extent, (long)tlb, (long)textent);
  CHECK_RC(MPI_Type_free(&t));
  CHECK_RC(MPI_Type_free(&shifted));
}

/* ---------------------------------------------- Fortran and C++ datatypes */

static void predefined_shapes(void) {
  const struct {
    MPI_Datatype type;
    int size;
    const char *name;
  } types[] = {
      {MPI_INTEGER, 4, "MPI_INTEGER"},
      {MPI_REAL, 4, "MPI_REAL"},
      {MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION"},
      {MPI_COMPLEX, 8, "MPI_COMPLEX"},
      {MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX"},
      {MPI_LOGICAL, 4, "MPI_LOGICAL"},
      {MPI_CHARACTER, 1, "MPI_CHARACTER"},
      {MPI_2REAL, 8, "MPI_2REAL"},
      {MPI_2DOUBLE_PRECISION, 16, "MPI_2DOUBLE_PRECISION"},
      {MPI_2INTEGER, 8, "MPI_2INTEGER"},
      {MPI_INTEGER1, 1, "MPI_INTEGER1"},
      {MPI_INTEGER2, 2, "MPI_INTEGER2"},
      {MPI_INTEGER4, 4, "MPI_INTEGER4"},
      {MPI_INTEGER8, 8, "MPI_INTEGER8"},
      {MPI_REAL4, 4, "MPI_REAL4"},
      {MPI_REAL8, 8, "MPI_REAL8"},
      {MPI_REAL16, 16, "MPI_REAL16"},
      {MPI_COMPLEX8, 8, "MPI_COMPLEX8"},
      {MPI_COMPLEX16, 16, "MPI_COMPLEX16"},
      {MPI_COMPLEX32, 32, "MPI_COMPLEX32"},
      {MPI_CXX_BOOL, (int)sizeof(bool), "MPI_CXX_BOOL"},
      {MPI_CXX_FLOAT_COMPLEX, 8, "MPI_CXX_FLOAT_COMPLEX"},
      {MPI_CXX_DOUBLE_COMPLEX, 16, "MPI_CXX_DOUBLE_COMPLEX"},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, (int)(2 * sizeof(long double)), "MPI_CXX_LONG_DOUBLE_COMPLEX"},
  };
  for (size_t k = 0; k < sizeof types / sizeof types[0]; ++k) {
    int s = -1, len = 0;
    MPI_Aint lb = -1, extent = -1;
    char name[MPI_MAX_OBJECT_NAME];
    CHECK_RC(MPI_Type_size(types[k].type, &s));
    CHECK_RC(MPI_Type_get_extent(types[k].type, &lb, &extent));
    CHECK_RC(MPI_Type_get_name(types[k].type, name, &len));
    CHECK(s == types[k].size && lb == 0 && extent == types[k].size, "%s: size %d lb %ld extent %ld, expected %d",
          types[k].name, s, (long)lb, (long)extent, types[k].size);
    CHECK(strcmp(name, types[k].name) == 0, "datatype %d is named '%s', expected %s", types[k].type, name, types[k].name);
    MPI_Datatype t = types[k].type;
    CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
  }
  /* A Fortran pair is two basic elements. */
  float pairs[3][2] = {{1, 0}, {2, 1}, {3, 2}}, got[3][2];
  MPI_Status st;
  CHECK_RC(MPI_Sendrecv(pairs, 3, MPI_2REAL, 0, 5, got, 3, MPI_2REAL, 0, 5, MPI_COMM_SELF, &st));
  int count = 0, elements = 0;
  CHECK_RC(MPI_Get_count(&st, MPI_2REAL, &count));
  CHECK_RC(MPI_Get_elements(&st, MPI_2REAL, &elements));
  CHECK(count == 3 && elements == 6, "3 MPI_2REAL: count %d elements %d, expected 3 and 6", count, elements);
  CHECK(memcmp(pairs, got, sizeof pairs) == 0, "MPI_2REAL data changed on the way");
}

static void match_size(void) {
  const struct {
    int typeclass, size;
    MPI_Datatype want;
  } cases[] = {
      {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1}, {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
      {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4}, {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4},       {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
      {MPI_TYPECLASS_REAL, 16, MPI_REAL16},     {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
      {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16}, {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    CHECK_RC(MPI_Type_match_size(cases[k].typeclass, cases[k].size, &t));
    CHECK(t == cases[k].want, "MPI_Type_match_size(%d, %d) gave %d, expected %d", cases[k].typeclass, cases[k].size, t,
          cases[k].want);
  }
  MPI_Datatype t;
  CHECK_CLASS(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 2, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 4, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG);

  /* The f90 types pick the smallest sized type that holds (p, r). */
  const struct {
    int combiner, p, r, size;
  } f90[] = {
      {MPI_COMBINER_F90_REAL, 6, 37, 4},        {MPI_COMBINER_F90_REAL, 7, MPI_UNDEFINED, 8},
      {MPI_COMBINER_F90_REAL, MPI_UNDEFINED, 300, 8}, {MPI_COMBINER_F90_REAL, 20, 1000, 16},
      {MPI_COMBINER_F90_COMPLEX, 15, 307, 16},  {MPI_COMBINER_F90_COMPLEX, 30, MPI_UNDEFINED, 32},
      {MPI_COMBINER_F90_INTEGER, 0, 2, 1},      {MPI_COMBINER_F90_INTEGER, 0, 4, 2},
      {MPI_COMBINER_F90_INTEGER, 0, 9, 4},      {MPI_COMBINER_F90_INTEGER, 0, 18, 8},
  };
  for (size_t k = 0; k < sizeof f90 / sizeof f90[0]; ++k) {
    if (f90[k].combiner == MPI_COMBINER_F90_REAL) {
      CHECK_RC(MPI_Type_create_f90_real(f90[k].p, f90[k].r, &t));
    } else if (f90[k].combiner == MPI_COMBINER_F90_COMPLEX) {
      CHECK_RC(MPI_Type_create_f90_complex(f90[k].p, f90[k].r, &t));
    } else {
      CHECK_RC(MPI_Type_create_f90_integer(f90[k].r, &t));
    }
    int s = 0;
    CHECK_RC(MPI_Type_size(t, &s));
    CHECK(s == f90[k].size, "f90 case %zu (p %d, r %d): %d bytes, expected %d", k, f90[k].p, f90[k].r, s, f90[k].size);
  }
  CHECK_CLASS(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_real(MPI_UNDEFINED, 5000, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_complex(40, 10, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG);
}

/* (value, index) of the Fortran pairs: MAXLOC or MINLOC of each k over the
   ranks, values chosen to tie so the smallest index must win. */
static double pair_value(int r, int k) { return (double)((r + k) % 3); }

static void expect_loc(double got_value, double got_index, int k, int maxloc, const char *what) {
  double best = pair_value(0, k);
  int at = 0;
  for (int r = 1; r < size; ++r) {
    const double v = pair_value(r, k);
    if (maxloc ? v > best : v < best) {
      best = v;
      at = r;
    }
  }
  CHECK(got_value == best && got_index == (double)at, "%s, element %d: (%g, %g), expected (%g, %d)", what, k, got_value,
        got_index, best, at);
}

static void fortran_reductions(void) {
  enum { K = 5 };
  const int tri = size * (size - 1) / 2; /* 0 + 1 + ... + size-1 */
  {
    int in[K], out[K];
    for (int k = 0; k < K; ++k) in[k] = rank * 10 + k;
    const MPI_Datatype ints[] = {MPI_INTEGER, MPI_INTEGER4};
    for (int t = 0; t < 2; ++t) {
      CHECK_RC(MPI_Allreduce(in, out, K, ints[t], MPI_SUM, MPI_COMM_WORLD));
      for (int k = 0; k < K; ++k) CHECK(out[k] == 10 * tri + size * k, "INTEGER SUM[%d] = %d", k, out[k]);
    }
  }
  {
    signed char in1[K], out1[K];
    short in2[K], out2[K];
    long long in8[K], out8[K];
    for (int k = 0; k < K; ++k) {
      in1[k] = (signed char)(rank + k);
      in2[k] = (short)(100 * rank - k);
      in8[k] = (1LL << 40) * rank + k;
    }
    CHECK_RC(MPI_Allreduce(in1, out1, K, MPI_INTEGER1, MPI_SUM, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(in2, out2, K, MPI_INTEGER2, MPI_MAX, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(in8, out8, K, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < K; ++k) {
      CHECK(out1[k] == tri + size * k, "INTEGER1 SUM[%d] = %d", k, out1[k]);
      CHECK(out2[k] == 100 * (size - 1) - k, "INTEGER2 MAX[%d] = %d", k, out2[k]);
      CHECK(out8[k] == (1LL << 40) * tri + (long long)size * k, "INTEGER8 SUM[%d] = %lld", k, out8[k]);
    }
  }
  {
    float inf[K], outf[K];
    double ind[K], outd[K];
    for (int k = 0; k < K; ++k) {
      inf[k] = (float)rank + 0.5f * (float)k;
      ind[k] = (double)rank * 0.25 - k;
    }
    const MPI_Datatype reals[] = {MPI_REAL, MPI_REAL4}, doubles[] = {MPI_DOUBLE_PRECISION, MPI_REAL8};
    for (int t = 0; t < 2; ++t) {
      CHECK_RC(MPI_Allreduce(inf, outf, K, reals[t], MPI_SUM, MPI_COMM_WORLD));
      CHECK_RC(MPI_Allreduce(ind, outd, K, doubles[t], MPI_SUM, MPI_COMM_WORLD));
      for (int k = 0; k < K; ++k) {
        CHECK(outf[k] == (float)tri + 0.5f * (float)(size * k), "REAL SUM[%d] = %g", k, (double)outf[k]);
        CHECK(outd[k] == 0.25 * tri - (double)size * k, "DOUBLE PRECISION SUM[%d] = %g", k, outd[k]);
      }
    }
    CHECK_RC(MPI_Allreduce(inf, outf, K, MPI_REAL, MPI_MIN, MPI_COMM_WORLD));
    for (int k = 0; k < K; ++k) CHECK(outf[k] == 0.5f * (float)k, "REAL MIN[%d] = %g", k, (double)outf[k]);
  }
  {
    quad in[K], out[K];
    for (int k = 0; k < K; ++k) in[k] = (quad)rank + (quad)0.125 * (quad)k;
    CHECK_RC(MPI_Allreduce(in, out, K, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < K; ++k) {
      CHECK(out[k] == (quad)tri + (quad)0.125 * (quad)(size * k), "REAL16 SUM[%d] = %g", k, (double)out[k]);
    }
    quad cin[2 * K], cout[2 * K];
    for (int k = 0; k < K; ++k) {
      cin[2 * k] = (quad)(rank + k);
      cin[2 * k + 1] = (quad)(-rank);
    }
    CHECK_RC(MPI_Allreduce(cin, cout, K, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < K; ++k) {
      CHECK(cout[2 * k] == (quad)(tri + size * k) && cout[2 * k + 1] == (quad)(-tri), "COMPLEX32 SUM[%d] = (%g, %g)", k,
            (double)cout[2 * k], (double)cout[2 * k + 1]);
    }
  }
  {
    /* Complex: SUM of (rank + k, -rank); PROD of i over the ranks is i^size. */
    float cf[2 * K], of[2 * K];
    double cd[2 * K], od[2 * K];
    for (int k = 0; k < K; ++k) {
      cf[2 * k] = (float)(rank + k);
      cf[2 * k + 1] = (float)-rank;
      cd[2 * k] = 0;
      cd[2 * k + 1] = 1;
    }
    const MPI_Datatype complexes[] = {MPI_COMPLEX, MPI_COMPLEX8, MPI_CXX_FLOAT_COMPLEX};
    for (int t = 0; t < 3; ++t) {
      CHECK_RC(MPI_Allreduce(cf, of, K, complexes[t], MPI_SUM, MPI_COMM_WORLD));
      for (int k = 0; k < K; ++k) {
        CHECK(of[2 * k] == (float)(tri + size * k) && of[2 * k + 1] == (float)-tri, "COMPLEX SUM[%d] = (%g, %g)", k,
              (double)of[2 * k], (double)of[2 * k + 1]);
      }
    }
    static const double powers[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}}; /* i^0 .. i^3 */
    const MPI_Datatype doubles[] = {MPI_DOUBLE_COMPLEX, MPI_COMPLEX16, MPI_CXX_DOUBLE_COMPLEX};
    for (int t = 0; t < 3; ++t) {
      CHECK_RC(MPI_Allreduce(cd, od, K, doubles[t], MPI_PROD, MPI_COMM_WORLD));
      for (int k = 0; k < K; ++k) {
        CHECK(od[2 * k] == powers[size % 4][0] && od[2 * k + 1] == powers[size % 4][1],
              "DOUBLE COMPLEX PROD[%d] = (%g, %g), expected i^%d", k, od[2 * k], od[2 * k + 1], size);
      }
    }
  }
  {
    /* LOGICAL: any nonzero int is true. */
    int in[3] = {rank == 0 ? 0 : 7, 5, rank == size - 1 ? -1 : 0}, land[3], lor[3];
    CHECK_RC(MPI_Allreduce(in, land, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(in, lor, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(!land[0] && land[1] && (size == 1 ? land[2] != 0 : !land[2]), "LOGICAL LAND = %d %d %d", land[0], land[1],
          land[2]);
    CHECK((size > 1) == (lor[0] != 0) && lor[1] && lor[2], "LOGICAL LOR = %d %d %d", lor[0], lor[1], lor[2]);
    bool b = rank == size - 1, bor = false;
    CHECK_RC(MPI_Allreduce(&b, &bor, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(bor, "MPI_CXX_BOOL LOR is false");
  }
  {
    /* MINLOC/MAXLOC on the three Fortran pairs, and as a derived type. */
    float f[2 * K], fo[2 * K];
    double d[2 * K], dout[2 * K];
    int n[2 * K], no[2 * K];
    for (int k = 0; k < K; ++k) {
      f[2 * k] = (float)pair_value(rank, k);
      d[2 * k] = pair_value(rank, k);
      n[2 * k] = (int)pair_value(rank, k);
      f[2 * k + 1] = (float)rank;
      d[2 * k + 1] = rank;
      n[2 * k + 1] = rank;
    }
    CHECK_RC(MPI_Allreduce(f, fo, K, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(d, dout, K, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK_RC(MPI_Reduce(n, no, K, MPI_2INTEGER, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    for (int k = 0; k < K; ++k) {
      expect_loc(fo[2 * k], fo[2 * k + 1], k, 1, "MPI_2REAL MAXLOC");
      expect_loc(dout[2 * k], dout[2 * k + 1], k, 0, "MPI_2DOUBLE_PRECISION MINLOC");
      if (rank == 0) expect_loc(no[2 * k], no[2 * k + 1], k, 1, "MPI_2INTEGER MAXLOC");
    }
    MPI_Datatype five;
    CHECK_RC(MPI_Type_contiguous(K, MPI_2INTEGER, &five));
    CHECK_RC(MPI_Type_commit(&five));
    CHECK_RC(MPI_Allreduce(n, no, 1, five, MPI_MINLOC, MPI_COMM_WORLD));
    for (int k = 0; k < K; ++k) expect_loc(no[2 * k], no[2 * k + 1], k, 0, "contiguous MPI_2INTEGER MINLOC");
    CHECK_RC(MPI_Type_free(&five));
    /* Reduce_local: the first pair wins ties (smaller index). */
    int a[2] = {4, 1}, b[2] = {4, 2};
    CHECK_RC(MPI_Reduce_local(a, b, 1, MPI_2INTEGER, MPI_MAXLOC));
    CHECK(b[0] == 4 && b[1] == 1, "MPI_Reduce_local MAXLOC tie gave (%d, %d)", b[0], b[1]);
  }
  {
    /* The f90 types reduce as the sized type they match. */
    MPI_Datatype r8, i2, c8;
    CHECK_RC(MPI_Type_create_f90_real(10, 100, &r8));
    CHECK_RC(MPI_Type_create_f90_integer(3, &i2));
    CHECK_RC(MPI_Type_create_f90_complex(5, MPI_UNDEFINED, &c8));
    double d = rank + 0.5, dsum = 0;
    short s = (short)(rank + 1), ssum = 0;
    float c[2] = {(float)rank, 1}, csum[2];
    CHECK_RC(MPI_Allreduce(&d, &dsum, 1, r8, MPI_SUM, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(&s, &ssum, 1, i2, MPI_SUM, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(c, csum, 1, c8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(dsum == tri + 0.5 * size, "f90 real SUM = %g", dsum);
    CHECK(ssum == tri + size, "f90 integer SUM = %d", ssum);
    CHECK(csum[0] == (float)tri && csum[1] == (float)size, "f90 complex SUM = (%g, %g)", (double)csum[0],
          (double)csum[1]);
    int sr8 = 0;
    CHECK_RC(MPI_Reduce_local(&d, &dsum, 1, r8, MPI_MAX));
    CHECK_RC(MPI_Type_size(r8, &sr8));
    CHECK(sr8 == 8, "f90 real size %d", sr8);
  }
  {
    /* Operations the standard does not define on a type: MPI_ERR_OP. */
    char ch[2] = {'a', 'b'}, cho[2];
    float fv[2] = {1, 2}, fvo[2];
    CHECK_CLASS(MPI_Allreduce(ch, cho, 2, MPI_CHARACTER, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(fv, fvo, 1, MPI_REAL, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(fv, fvo, 2, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(fv, fvo, 1, MPI_2REAL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
  }
}

static void expect_bytes(const unsigned char *got, const unsigned char *want, int n, const char *what) {
  for (int i = 0; i < n; ++i) CHECK(got[i] == want[i], "%s: byte %d is 0x%02x, expected 0x%02x", what, i, got[i], want[i]);
}

static void external32(void) {
  unsigned char buf[64];
  MPI_Aint position = 0;
  int integer = 0x01020304;
  CHECK_RC(MPI_Pack_external("external32", &integer, 1, MPI_INTEGER, buf, sizeof buf, &position));
  const unsigned char want_int[] = {1, 2, 3, 4};
  expect_bytes(buf, want_int, 4, "MPI_INTEGER external32");
  double pair[2] = {1.0, 2.0}, back[2];
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", pair, 1, MPI_2DOUBLE_PRECISION, buf, sizeof buf, &position));
  const unsigned char want_pair[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0};
  expect_bytes(buf, want_pair, 16, "MPI_2DOUBLE_PRECISION external32");
  position = 0;
  CHECK_RC(MPI_Unpack_external("external32", buf, 16, &position, back, 1, MPI_2DOUBLE_PRECISION));
  CHECK(back[0] == 1.0 && back[1] == 2.0, "MPI_2DOUBLE_PRECISION external32 round trip gave %g %g", back[0], back[1]);
  quad q = (quad)-1.0, qback = 0;
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", &q, 1, MPI_REAL16, buf, sizeof buf, &position));
  const unsigned char want_quad[] = {0xbf, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  expect_bytes(buf, want_quad, 16, "MPI_REAL16 external32");
  position = 0;
  CHECK_RC(MPI_Unpack_external("external32", buf, 16, &position, &qback, 1, MPI_REAL16));
  CHECK(qback == q, "MPI_REAL16 external32 round trip gave %g", (double)qback);
  float cplx[2] = {1.0f, -2.0f};
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", cplx, 1, MPI_COMPLEX, buf, sizeof buf, &position));
  const unsigned char want_cplx[] = {0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0};
  expect_bytes(buf, want_cplx, 8, "MPI_COMPLEX external32");

  /* Longs are 4 bytes in external32; one that does not fit is refused. */
  long longs[2] = {0x01020304L, -2L}, lback[2] = {0, 0};
  MPI_Aint size = 0;
  CHECK_RC(MPI_Pack_external_size("external32", 2, MPI_LONG, &size));
  CHECK(size == 8, "MPI_Pack_external_size of 2 MPI_LONG is %ld", (long)size);
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", longs, 2, MPI_LONG, buf, sizeof buf, &position));
  const unsigned char want_long[] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
  CHECK(position == 8, "MPI_Pack_external of 2 MPI_LONG moved the position to %ld", (long)position);
  expect_bytes(buf, want_long, 8, "MPI_LONG external32");
  position = 0;
  CHECK_RC(MPI_Unpack_external("external32", buf, 8, &position, lback, 2, MPI_LONG));
  CHECK(lback[0] == longs[0] && lback[1] == -2L, "MPI_LONG external32 round trip gave %ld %ld", lback[0], lback[1]);
  unsigned long big = 0xffffffffUL;
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", &big, 1, MPI_UNSIGNED_LONG, buf, sizeof buf, &position));
  if (sizeof(long) == 8) {
    long huge = 1L << 40;
    position = 0;
    CHECK_CLASS(MPI_Pack_external("external32", &huge, 1, MPI_LONG, buf, sizeof buf, &position), MPI_ERR_CONVERSION);
  }

  /* Pairs: the value's external32 form, then a 4-byte int, no padding. */
  struct { long v; int i; } li = {-5, 7}, liback = {0, 0};
  CHECK_RC(MPI_Pack_external_size("external32", 1, MPI_LONG_INT, &size));
  CHECK(size == 8, "MPI_Pack_external_size of MPI_LONG_INT is %ld", (long)size);
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", &li, 1, MPI_LONG_INT, buf, sizeof buf, &position));
  const unsigned char want_li[] = {0xff, 0xff, 0xff, 0xfb, 0, 0, 0, 7};
  expect_bytes(buf, want_li, 8, "MPI_LONG_INT external32");
  position = 0;
  CHECK_RC(MPI_Unpack_external("external32", buf, 8, &position, &liback, 1, MPI_LONG_INT));
  CHECK(liback.v == -5 && liback.i == 7, "MPI_LONG_INT external32 round trip gave %ld %d", liback.v, liback.i);
  struct { double v; int i; } di = {2.0, 3};
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", &di, 1, MPI_DOUBLE_INT, buf, sizeof buf, &position));
  const unsigned char want_di[] = {0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3};
  CHECK(position == 12, "MPI_DOUBLE_INT external32 is %ld bytes", (long)position);
  expect_bytes(buf, want_di, 12, "MPI_DOUBLE_INT external32");

  /* Long doubles are IEEE binary128 in external32. */
  long double ld[2] = {1.5L, -2.0L}, ldback[2] = {0, 0};
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", ld, 1, MPI_C_LONG_DOUBLE_COMPLEX, buf, sizeof buf, &position));
  CHECK(position == 32, "MPI_C_LONG_DOUBLE_COMPLEX external32 is %ld bytes", (long)position);
  unsigned char want_ld[32] = {0x3f, 0xff, 0x80};
  want_ld[16] = 0xc0;
  expect_bytes(buf, want_ld, 32, "MPI_C_LONG_DOUBLE_COMPLEX external32");
  position = 0;
  CHECK_RC(MPI_Unpack_external("external32", buf, 32, &position, ldback, 1, MPI_C_LONG_DOUBLE_COMPLEX));
  CHECK(ldback[0] == 1.5L && ldback[1] == -2.0L, "long double external32 round trip gave %Lg %Lg", ldback[0],
        ldback[1]);
  const long double tricky[3] = {0.1L, LDBL_MIN / 4, -LDBL_MAX};
  long double tback[3] = {0, 0, 0};
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", tricky, 3, MPI_LONG_DOUBLE, buf, sizeof buf, &position));
  position = 0;
  CHECK_RC(MPI_Unpack_external("external32", buf, 48, &position, tback, 3, MPI_LONG_DOUBLE));
  for (int i = 0; i < 3; ++i) CHECK(tback[i] == tricky[i], "long double %d external32 round trip gave %Lg", i, tback[i]);
  if (LDBL_MANT_DIG == 64) {
    /* binary128 has 49 more fraction bits: rounded to nearest, ties to even. */
    unsigned char q128[16] = {0x3f, 0xff};
    q128[9] = 0x01; /* 1 + 2^-64: a tie, rounds to 1 */
    long double r = 0;
    position = 0;
    CHECK_RC(MPI_Unpack_external("external32", q128, 16, &position, &r, 1, MPI_LONG_DOUBLE));
    CHECK(r == 1.0L, "1 + 2^-64 from binary128 gave 1 + %Lg", r - 1.0L);
    q128[15] = 0x01; /* a little more: rounds up to 1 + 2^-63 */
    position = 0;
    CHECK_RC(MPI_Unpack_external("external32", q128, 16, &position, &r, 1, MPI_LONG_DOUBLE));
    CHECK(r == 1.0L + LDBL_EPSILON, "1 + 2^-64 + tiny from binary128 gave 1 + %Lg", r - 1.0L);
  }
}

/* ------------------------------------------------------ handle conversion */

static void sum_ints(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

static void handle_conversion(void) {
  MPI_Comm dup;
  CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  const MPI_Comm comms[] = {MPI_COMM_WORLD, MPI_COMM_SELF, dup, MPI_COMM_NULL};
  for (int k = 0; k < 4; ++k) {
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(comms[k])) == comms[k], "communicator %d does not survive c2f/f2c", comms[k]);
  }
  int dsize = 0;
  CHECK_RC(MPI_Comm_size(MPI_Comm_f2c(MPI_Comm_c2f(dup)), &dsize));
  CHECK(dsize == size, "a converted communicator has %d ranks", dsize);

  MPI_Datatype vec;
  CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
  const MPI_Datatype types[] = {MPI_INTEGER, MPI_DOUBLE, vec, MPI_DATATYPE_NULL};
  for (int k = 0; k < 4; ++k) {
    CHECK(MPI_Type_f2c(MPI_Type_c2f(types[k])) == types[k], "datatype %d does not survive c2f/f2c", types[k]);
  }
  /* The converted handle is the type: freeing it frees vec. */
  MPI_Datatype back = MPI_Type_f2c(MPI_Type_c2f(vec));
  CHECK_RC(MPI_Type_free(&back));
  CHECK_CLASS(MPI_Type_size(vec, &dsize), MPI_ERR_TYPE);

  MPI_Group group;
  CHECK_RC(MPI_Comm_group(dup, &group));
  MPI_Group g2 = MPI_Group_f2c(MPI_Group_c2f(group));
  int gsize = 0;
  CHECK_RC(MPI_Group_size(g2, &gsize));
  CHECK(g2 == group && gsize == size, "group %d came back as %d with %d ranks", group, g2, gsize);
  CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "MPI_GROUP_EMPTY changed");
  CHECK_RC(MPI_Group_free(&g2));

  MPI_Op op;
  CHECK_RC(MPI_Op_create(sum_ints, 1, &op));
  MPI_Op op2 = MPI_Op_f2c(MPI_Op_c2f(op));
  int a[2] = {1, 2}, b[2] = {10, 20};
  CHECK_RC(MPI_Reduce_local(a, b, 2, MPI_INT, op2));
  CHECK(op2 == op && b[0] == 11 && b[1] == 22, "a converted user operation gave %d %d", b[0], b[1]);
  CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "MPI_SUM changed");
  CHECK_RC(MPI_Op_free(&op2));

  MPI_Info info;
  CHECK_RC(MPI_Info_create(&info));
  CHECK_RC(MPI_Info_set(info, "key", "value"));
  MPI_Info info2 = MPI_Info_f2c(MPI_Info_c2f(info));
  char value[16];
  int flag = 0;
  CHECK_RC(MPI_Info_get(info2, "key", (int)sizeof value - 1, value, &flag));
  CHECK(info2 == info && flag && strcmp(value, "value") == 0, "a converted info object lost its key");
  CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL, "MPI_INFO_NULL changed");
  CHECK_RC(MPI_Info_free(&info2));

  MPI_Errhandler eh;
  CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(eh)) == eh, "error handler %d changed", eh);
  CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN, "MPI_ERRORS_RETURN changed");
  CHECK_RC(MPI_Errhandler_free(&eh));

  /* A request, a message and a status through their Fortran forms. */
  int out[3] = {rank, 2 * rank, 3 * rank}, in[3] = {0, 0, 0};
  MPI_Request request;
  CHECK_RC(MPI_Irecv(in, 3, MPI_INT, rank, 42, dup, &request));
  MPI_Request request2 = MPI_Request_f2c(MPI_Request_c2f(request));
  CHECK(request2 == request, "request %d came back as %d", request, request2);
  CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "MPI_REQUEST_NULL changed");
  CHECK_RC(MPI_Send(out, 3, MPI_INT, rank, 42, dup));
  MPI_Status st;
  mt_scribble_status(&st);
  CHECK_RC(MPI_Wait(&request2, &st));
  CHECK(in[0] == rank && in[1] == 2 * rank && in[2] == 3 * rank, "receive through a converted request: %d %d %d", in[0],
        in[1], in[2]);

  MPI_Fint fstatus[MPI_F_STATUS_SIZE];
  CHECK_RC(MPI_Status_c2f(&st, fstatus));
  CHECK(fstatus[MPI_F_SOURCE] == rank && fstatus[MPI_F_TAG] == 42 && fstatus[MPI_F_ERROR] == st.MPI_ERROR,
        "Fortran status: source %d tag %d error %d", fstatus[MPI_F_SOURCE], fstatus[MPI_F_TAG], fstatus[MPI_F_ERROR]);
  MPI_Status st2;
  mt_scribble_status(&st2);
  CHECK_RC(MPI_Status_f2c(fstatus, &st2));
  int count = -1, elements = -1, cancelled = -1;
  CHECK_RC(MPI_Get_count(&st2, MPI_INT, &count));
  CHECK_RC(MPI_Get_elements(&st2, MPI_INT, &elements));
  CHECK_RC(MPI_Test_cancelled(&st2, &cancelled));
  CHECK(st2.MPI_SOURCE == rank && st2.MPI_TAG == 42 && count == 3 && elements == 3 && cancelled == 0,
        "status after c2f/f2c: source %d tag %d count %d elements %d cancelled %d", st2.MPI_SOURCE, st2.MPI_TAG, count,
        elements, cancelled);
  CHECK_CLASS(MPI_Status_c2f(MPI_STATUS_IGNORE, fstatus), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_f2c(fstatus, MPI_STATUS_IGNORE), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_f2c(NULL, &st2), MPI_ERR_ARG);

  MPI_Message message;
  CHECK_RC(MPI_Send(out, 2, MPI_INT, rank, 43, dup));
  CHECK_RC(MPI_Mprobe(rank, 43, dup, &message, MPI_STATUS_IGNORE));
  MPI_Message message2 = MPI_Message_f2c(MPI_Message_c2f(message));
  CHECK(message2 == message, "message %d came back as %d", message, message2);
  CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC, "MPI_MESSAGE_NO_PROC changed");
  in[0] = in[1] = -1;
  CHECK_RC(MPI_Mrecv(in, 2, MPI_INT, &message2, MPI_STATUS_IGNORE));
  CHECK(in[0] == rank && in[1] == 2 * rank && message2 == MPI_MESSAGE_NULL, "receive of a converted message: %d %d", in[0],
        in[1]);

  CHECK_RC(MPI_Comm_free(&dup));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* The checks of error classes need the errors returned. */
  CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  decoding();
  darray_layouts();
  darray_exchange();
  darray_errors();
  subarray_bounds();
  predefined_shapes();
  match_size();
  fortran_reductions();
  external32();
  handle_conversion();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  if (rank == 0) printf("datatype_chapter ok: %d ranks\n", size);
  return 0;
}
