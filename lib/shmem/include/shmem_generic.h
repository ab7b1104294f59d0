/* OpenSHMEM 1.5 C11 type-generic interfaces for the MPF Toolkit: shmem_put,
 * shmem_atomic_fetch_add, shmem_wait_until, shmem_sum_reduce and the rest of
 * the standard's generic names, each a macro that chooses a typed routine of
 * <shmem.h> by C11 generic selection (_Generic) on a pointer argument. <shmem.h>
 * includes this header when it is compiled as C11 or later; C++ has no
 * _Generic and calls the typed routines. See man 3 shmem.
 *
 * Which argument chooses the routine: the pointer that the standard's
 * synopsis types with TYPE and the routine reads or writes at the target:
 *   dest    p, put, get, their _nbi, strided and signal forms; the AMOs that
 *           take a dest; the team collectives and reductions
 *   source  g and atomic_fetch (a const TYPE *)
 *   fetch   the non-blocking fetching AMOs (atomic_fetch_add_nbi ...), whose
 *           first pointer is the local TYPE * that receives the old value
 *   ivar(s) wait_until and test in all their forms
 * The RMA and AMO names also take a leading context, as the standard
 * overloads them: shmem_put(ctx, dest, source, nelems, pe) calls
 * shmem_ctx_TYPENAME_put, chosen by dest; shmem_put(dest, source, nelems, pe)
 * calls shmem_TYPENAME_put.
 *
 * Why the key is the pointer itself, not the object (*ptr) it points to:
 *   - in a context overload the branch that is not taken must still compile,
 *     and there the candidate argument may be a value or a PE number, where
 *     *ptr does not compile while a pointer type simply fails to match;
 *   - it accepts exactly the pointers the typed routine accepts: TYPE * where
 *     the routine takes TYPE *, and both TYPE * and const TYPE * where it takes
 *     const TYPE * (shmem_g, shmem_atomic_fetch, the deprecated shmem_fetch),
 *     so a const dest or a void * is refused at the selection. Keying on *ptr
 *     would drop the const (lvalue conversion) and leave the refusal to a
 *     qualifier warning at the call.
 * An array argument decays to a pointer as it would in the call. The
 * controlling expressions are never evaluated, so each argument is evaluated
 * once, by the call; arguments of the wrong count are reported by the typed
 * routine's prototype.
 *
 * Which types: _Generic may not name one type twice, and the standard's tables
 * list typedefs (int32_t, size_t, ptrdiff_t ...) beside the types they name.
 * The association lists below therefore hold only distinct types, and a
 * typedef reaches the routine of the type it names: int64_t * and ptrdiff_t *
 * call shmem_long_put on this LP64 platform, size_t * calls shmem_ulong_put,
 * with the same effect as shmem_int64_put and shmem_size_put. Where a table
 * has no routine for the base type (the bitwise AMOs and bitwise reductions
 * have no signed int or long), the association is the exact-width typedef and
 * its routine: int * calls shmem_int32_atomic_and. The _Static_asserts at the
 * end check that every type of every table in <shmem.h> has an association,
 * so a platform whose typedefs name other types fails here, not at a call. A
 * pointer to any other type is refused at compile time ("_Generic selector of
 * type 'short *' is not compatible with any association").
 *
 * The point-to-point synchronization names cover the table <shmem.h> declares
 * (the standard AMO types and the deprecated short and unsigned short).
 * shmem_sync(team) is the standard's C11 team barrier; shmem_sync with the
 * four active-set arguments still calls the deprecated active-set routine.
 * The generic AMO names that OpenSHMEM 1.4 deprecated (shmem_fetch, shmem_set,
 * shmem_swap, shmem_cswap, shmem_finc, shmem_inc, shmem_fadd, shmem_add) call
 * the shmem_atomic_* routine of the same meaning, for the types the standard
 * gives them, and warn once per call under GCC and Clang.
 *
 * Every helper macro is named MPF_SHMEM_*; the names without that prefix are
 * the standard's. */
#ifndef SHMEM_GENERIC_H
#define SHMEM_GENERIC_H

#if defined(__cplusplus) || !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "shmem_generic.h: the type-generic OpenSHMEM names need C11 _Generic; compile as C11 or call the typed routines"
#else

/* With SHMEM_GENERIC_H already defined, <shmem.h> (which includes this header
 * at its end) is complete before the definitions below when a program
 * includes this header first. */
#include <shmem.h>

/* ---- Distinct-type tables ---------------------------------------------------
 * X(FN, TYPENAME, TYPE) for every distinct TYPE of a table of the standard,
 * TYPENAME naming its routines shmem_TYPENAME##FN; FN passes through. */

/* The standard RMA types; also the min/max reduction types. */
#define MPF_SHMEM_GENERIC_RMA_TYPES(X, FN)                                                   \
  X(FN, float, float) X(FN, double, double) X(FN, longdouble, long double) X(FN, char, char) \
  X(FN, schar, signed char) X(FN, short, short) X(FN, int, int) X(FN, long, long)            \
  X(FN, longlong, long long) X(FN, uchar, unsigned char) X(FN, ushort, unsigned short)       \
  X(FN, uint, unsigned int) X(FN, ulong, unsigned long) X(FN, ulonglong, unsigned long long)

/* The standard AMO types (compare_swap, fetch_inc, inc, fetch_add, add). */
#define MPF_SHMEM_GENERIC_AMO_TYPES(X, FN)                                                  \
  X(FN, int, int) X(FN, long, long) X(FN, longlong, long long) X(FN, uint, unsigned int) \
  X(FN, ulong, unsigned long) X(FN, ulonglong, unsigned long long)

/* The extended AMO types (fetch, set, swap). */
#define MPF_SHMEM_GENERIC_EXTENDED_AMO_TYPES(X, FN) \
  X(FN, float, float) X(FN, double, double) MPF_SHMEM_GENERIC_AMO_TYPES(X, FN)

/* The bitwise AMO types: no signed int or long, so int32_t and int64_t
 * stand for themselves. */
#define MPF_SHMEM_GENERIC_BITWISE_AMO_TYPES(X, FN)                                              \
  X(FN, uint, unsigned int) X(FN, ulong, unsigned long) X(FN, ulonglong, unsigned long long) \
  X(FN, int32, int32_t) X(FN, int64, int64_t)

/* The point-to-point synchronization types. */
#define MPF_SHMEM_GENERIC_SYNC_TYPES(X, FN) \
  X(FN, short, short) X(FN, ushort, unsigned short) MPF_SHMEM_GENERIC_AMO_TYPES(X, FN)

/* The and/or/xor reduction types: unsigned, and the signed exact-width types
 * for themselves. */
#define MPF_SHMEM_GENERIC_BITWISE_REDUCE_TYPES(X, FN)                                               \
  X(FN, uchar, unsigned char) X(FN, ushort, unsigned short) X(FN, uint, unsigned int)             \
  X(FN, ulong, unsigned long) X(FN, ulonglong, unsigned long long) X(FN, int8, int8_t)            \
  X(FN, int16, int16_t) X(FN, int32, int32_t) X(FN, int64, int64_t)

/* The sum/prod reduction types: the min/max ones and the complex ones. */
#define MPF_SHMEM_GENERIC_ARITH_REDUCE_TYPES(X, FN) \
  MPF_SHMEM_GENERIC_RMA_TYPES(X, FN) X(FN, complexd, MPF_SHMEM_COMPLEXD) X(FN, complexf, MPF_SHMEM_COMPLEXF)

/* The types of the deprecated generic AMO names. */
#define MPF_SHMEM_GENERIC_OLD_AMO_TYPES(X, FN) X(FN, int, int) X(FN, long, long) X(FN, longlong, long long)
#define MPF_SHMEM_GENERIC_OLD_EXTENDED_AMO_TYPES(X, FN) \
  MPF_SHMEM_GENERIC_OLD_AMO_TYPES(X, FN) X(FN, float, float) X(FN, double, double)

/* ---- Associations -------------------------------------------------------------
 * One association per table row, each with its leading comma so that a table
 * follows the controlling expression directly: _Generic((ptr) TABLE(X, FN)).
 * FN arrives as _put, _atomic_add ...: a name with a leading underscore is no
 * user macro, so it passes through the tables unexpanded. */

#define MPF_SHMEM_ASSOC(FN, NAME, TYPE) , TYPE * : shmem_##NAME##FN
#define MPF_SHMEM_ASSOC_CTX(FN, NAME, TYPE) , TYPE * : shmem_ctx_##NAME##FN
#define MPF_SHMEM_ASSOC_CONST(FN, NAME, TYPE) MPF_SHMEM_ASSOC(FN, NAME, TYPE), const TYPE * : shmem_##NAME##FN
#define MPF_SHMEM_ASSOC_CTX_CONST(FN, NAME, TYPE) \
  MPF_SHMEM_ASSOC_CTX(FN, NAME, TYPE), const TYPE * : shmem_ctx_##NAME##FN

/* The first and second arguments of a call. The padding keeps a call with too
 * few arguments well-formed here, so that the routine's prototype reports it. */
#define MPF_SHMEM_ARG1(...) MPF_SHMEM_ARG1_(__VA_ARGS__, 0)
#define MPF_SHMEM_ARG1_(a, ...) a
#define MPF_SHMEM_ARG2(...) MPF_SHMEM_ARG2_(__VA_ARGS__, 0, 0)
#define MPF_SHMEM_ARG2_(a, b, ...) b

/* The pointer that chooses the routine of an overloaded call: the second
 * argument after a context, else the first. Both branches below key on it, so
 * the one not taken still sees a pointer of the table's types. */
#define MPF_SHMEM_KEY(...) \
  _Generic(MPF_SHMEM_ARG1(__VA_ARGS__), shmem_ctx_t: MPF_SHMEM_ARG2(__VA_ARGS__), default: MPF_SHMEM_ARG1(__VA_ARGS__))

/* The routine of shmem_NAME(...) with an optional leading context: TABLE's
 * shmem_ctx_TYPENAME##FN after a context, else its shmem_TYPENAME##FN. The
 * _CONST form also accepts a const TYPE * key. */
#define MPF_SHMEM_CTX_GENERIC(TABLE, FN, ...)                                               \
  _Generic(MPF_SHMEM_ARG1(__VA_ARGS__),                                                    \
           shmem_ctx_t: _Generic(MPF_SHMEM_KEY(__VA_ARGS__) TABLE(MPF_SHMEM_ASSOC_CTX, FN)), \
           default: _Generic(MPF_SHMEM_KEY(__VA_ARGS__) TABLE(MPF_SHMEM_ASSOC, FN)))
#define MPF_SHMEM_CTX_GENERIC_CONST(TABLE, FN, ...)                                               \
  _Generic(MPF_SHMEM_ARG1(__VA_ARGS__),                                                          \
           shmem_ctx_t: _Generic(MPF_SHMEM_KEY(__VA_ARGS__) TABLE(MPF_SHMEM_ASSOC_CTX_CONST, FN)), \
           default: _Generic(MPF_SHMEM_KEY(__VA_ARGS__) TABLE(MPF_SHMEM_ASSOC_CONST, FN)))

/* The routine of a name without a context form, chosen by PTR. */
#define MPF_SHMEM_GENERIC(TABLE, FN, PTR) _Generic((PTR) TABLE(MPF_SHMEM_ASSOC, FN))
#define MPF_SHMEM_GENERIC_CONST(TABLE, FN, PTR) _Generic((PTR) TABLE(MPF_SHMEM_ASSOC_CONST, FN))

/* ---- Remote memory access ------------------------------------------------------ */

#define shmem_p(...) MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _p, __VA_ARGS__)(__VA_ARGS__)
#define shmem_g(...) MPF_SHMEM_CTX_GENERIC_CONST(MPF_SHMEM_GENERIC_RMA_TYPES, _g, __VA_ARGS__)(__VA_ARGS__)
#define shmem_put(...) MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _put, __VA_ARGS__)(__VA_ARGS__)
#define shmem_get(...) MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _get, __VA_ARGS__)(__VA_ARGS__)
#define shmem_put_nbi(...) MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _put_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_get_nbi(...) MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _get_nbi, __VA_ARGS__)(__VA_ARGS__)
#define shmem_iput(...) MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _iput, __VA_ARGS__)(__VA_ARGS__)
#define shmem_iget(...) MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _iget, __VA_ARGS__)(__VA_ARGS__)
#define shmem_put_signal(...) MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _put_signal, __VA_ARGS__)(__VA_ARGS__)
#define shmem_put_signal_nbi(...) \
  MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _put_signal_nbi, __VA_ARGS__)(__VA_ARGS__)

/* ---- Atomic memory operations ----------------------------------------------------- */

#define MPF_SHMEM_AMO(FN, ...) MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_AMO_TYPES, FN, __VA_ARGS__)(__VA_ARGS__)
#define MPF_SHMEM_EXTENDED_AMO(FN, ...) \
  MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_EXTENDED_AMO_TYPES, FN, __VA_ARGS__)(__VA_ARGS__)
#define MPF_SHMEM_BITWISE_AMO(FN, ...) \
  MPF_SHMEM_CTX_GENERIC(MPF_SHMEM_GENERIC_BITWISE_AMO_TYPES, FN, __VA_ARGS__)(__VA_ARGS__)

#define shmem_atomic_fetch(...) \
  MPF_SHMEM_CTX_GENERIC_CONST(MPF_SHMEM_GENERIC_EXTENDED_AMO_TYPES, _atomic_fetch, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_set(...) MPF_SHMEM_EXTENDED_AMO(_atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) MPF_SHMEM_EXTENDED_AMO(_atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) MPF_SHMEM_EXTENDED_AMO(_atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) MPF_SHMEM_EXTENDED_AMO(_atomic_swap_nbi, __VA_ARGS__)

#define shmem_atomic_compare_swap(...) MPF_SHMEM_AMO(_atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) MPF_SHMEM_AMO(_atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) MPF_SHMEM_AMO(_atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) MPF_SHMEM_AMO(_atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) MPF_SHMEM_AMO(_atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) MPF_SHMEM_AMO(_atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) MPF_SHMEM_AMO(_atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) MPF_SHMEM_AMO(_atomic_fetch_add_nbi, __VA_ARGS__)

#define shmem_atomic_and(...) MPF_SHMEM_BITWISE_AMO(_atomic_and, __VA_ARGS__)
#define shmem_atomic_or(...) MPF_SHMEM_BITWISE_AMO(_atomic_or, __VA_ARGS__)
#define shmem_atomic_xor(...) MPF_SHMEM_BITWISE_AMO(_atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) MPF_SHMEM_BITWISE_AMO(_atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) MPF_SHMEM_BITWISE_AMO(_atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) MPF_SHMEM_BITWISE_AMO(_atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) MPF_SHMEM_BITWISE_AMO(_atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) MPF_SHMEM_BITWISE_AMO(_atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) MPF_SHMEM_BITWISE_AMO(_atomic_fetch_xor_nbi, __VA_ARGS__)

/* The deprecated names: the same routine as their shmem_atomic_* successor,
 * on the standard's narrower types, and one deprecation warning per call (the
 * typedef below is deprecated, and each call names it in a sizeof). */
#if defined(__GNUC__)
#define MPF_SHMEM_DEPRECATED_FOR(what) __attribute__((deprecated(what)))
#else
#define MPF_SHMEM_DEPRECATED_FOR(what)
#endif
#define MPF_SHMEM_OLD_GENERICS(X)                                                                       \
  X(fetch, atomic_fetch) X(set, atomic_set) X(swap, atomic_swap) X(cswap, atomic_compare_swap)          \
  X(finc, atomic_fetch_inc) X(inc, atomic_inc) X(fadd, atomic_fetch_add) X(add, atomic_add)
#define MPF_SHMEM_DECLARE_OLD_GENERIC(OLD, NEW) \
  typedef int mpf_shmem_generic_##OLD MPF_SHMEM_DEPRECATED_FOR("shmem_" #OLD " is deprecated: call shmem_" #NEW);
MPF_SHMEM_OLD_GENERICS(MPF_SHMEM_DECLARE_OLD_GENERIC)
/* The routine of deprecated name OLD: its successor NEW in the table of OLD. */
#define MPF_SHMEM_OLD_AMO(OLD, NEW, PTR) \
  ((void)sizeof(mpf_shmem_generic_##OLD), MPF_SHMEM_GENERIC(MPF_SHMEM_GENERIC_OLD_AMO_TYPES, NEW, PTR))
#define MPF_SHMEM_OLD_EXTENDED_AMO(OLD, NEW, PTR) \
  ((void)sizeof(mpf_shmem_generic_##OLD), MPF_SHMEM_GENERIC(MPF_SHMEM_GENERIC_OLD_EXTENDED_AMO_TYPES, NEW, PTR))

#define shmem_fetch(source, pe)                                                                       \
  ((void)sizeof(mpf_shmem_generic_fetch),                                                             \
   MPF_SHMEM_GENERIC_CONST(MPF_SHMEM_GENERIC_OLD_EXTENDED_AMO_TYPES, _atomic_fetch, source))(source, pe)
#define shmem_set(dest, value, pe) MPF_SHMEM_OLD_EXTENDED_AMO(set, _atomic_set, dest)(dest, value, pe)
#define shmem_swap(dest, value, pe) MPF_SHMEM_OLD_EXTENDED_AMO(swap, _atomic_swap, dest)(dest, value, pe)
#define shmem_cswap(dest, cond, value, pe) MPF_SHMEM_OLD_AMO(cswap, _atomic_compare_swap, dest)(dest, cond, value, pe)
#define shmem_finc(dest, pe) MPF_SHMEM_OLD_AMO(finc, _atomic_fetch_inc, dest)(dest, pe)
#define shmem_inc(dest, pe) MPF_SHMEM_OLD_AMO(inc, _atomic_inc, dest)(dest, pe)
#define shmem_fadd(dest, value, pe) MPF_SHMEM_OLD_AMO(fadd, _atomic_fetch_add, dest)(dest, value, pe)
#define shmem_add(dest, value, pe) MPF_SHMEM_OLD_AMO(add, _atomic_add, dest)(dest, value, pe)

/* ---- Point-to-point synchronization --------------------------------------------------- */

#define MPF_SHMEM_SYNC(FN, IVARS) MPF_SHMEM_GENERIC(MPF_SHMEM_GENERIC_SYNC_TYPES, FN, IVARS)

#define shmem_wait_until(ivar, cmp, cmp_value) MPF_SHMEM_SYNC(_wait_until, ivar)(ivar, cmp, cmp_value)
#define shmem_wait_until_all(ivars, nelems, status, cmp, cmp_value) \
  MPF_SHMEM_SYNC(_wait_until_all, ivars)(ivars, nelems, status, cmp, cmp_value)
#define shmem_wait_until_any(ivars, nelems, status, cmp, cmp_value) \
  MPF_SHMEM_SYNC(_wait_until_any, ivars)(ivars, nelems, status, cmp, cmp_value)
#define shmem_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value) \
  MPF_SHMEM_SYNC(_wait_until_some, ivars)(ivars, nelems, indices, status, cmp, cmp_value)
#define shmem_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values) \
  MPF_SHMEM_SYNC(_wait_until_all_vector, ivars)(ivars, nelems, status, cmp, cmp_values)
#define shmem_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values) \
  MPF_SHMEM_SYNC(_wait_until_any_vector, ivars)(ivars, nelems, status, cmp, cmp_values)
#define shmem_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values) \
  MPF_SHMEM_SYNC(_wait_until_some_vector, ivars)(ivars, nelems, indices, status, cmp, cmp_values)

#define shmem_test(ivar, cmp, cmp_value) MPF_SHMEM_SYNC(_test, ivar)(ivar, cmp, cmp_value)
#define shmem_test_all(ivars, nelems, status, cmp, cmp_value) \
  MPF_SHMEM_SYNC(_test_all, ivars)(ivars, nelems, status, cmp, cmp_value)
#define shmem_test_any(ivars, nelems, status, cmp, cmp_value) \
  MPF_SHMEM_SYNC(_test_any, ivars)(ivars, nelems, status, cmp, cmp_value)
#define shmem_test_some(ivars, nelems, indices, status, cmp, cmp_value) \
  MPF_SHMEM_SYNC(_test_some, ivars)(ivars, nelems, indices, status, cmp, cmp_value)
#define shmem_test_all_vector(ivars, nelems, status, cmp, cmp_values) \
  MPF_SHMEM_SYNC(_test_all_vector, ivars)(ivars, nelems, status, cmp, cmp_values)
#define shmem_test_any_vector(ivars, nelems, status, cmp, cmp_values) \
  MPF_SHMEM_SYNC(_test_any_vector, ivars)(ivars, nelems, status, cmp, cmp_values)
#define shmem_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values) \
  MPF_SHMEM_SYNC(_test_some_vector, ivars)(ivars, nelems, indices, status, cmp, cmp_values)

/* ---- Team collectives ------------------------------------------------------------------ */

/* shmem_sync(team) is shmem_team_sync; with the four active-set arguments it
 * is the deprecated routine of that name (which this expansion does not
 * replace again). Told apart by the number of arguments, so that only the
 * active-set form meets the deprecation. */
#define shmem_sync(...) \
  MPF_SHMEM_SYNC_PICK_(__VA_ARGS__, shmem_sync, shmem_sync, shmem_sync, shmem_team_sync, 0)(__VA_ARGS__)
#define MPF_SHMEM_SYNC_PICK_(a, b, c, d, routine, ...) routine

#define shmem_broadcast(team, dest, source, nelems, PE_root) \
  MPF_SHMEM_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _broadcast, dest)(team, dest, source, nelems, PE_root)
#define shmem_collect(team, dest, source, nelems) \
  MPF_SHMEM_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _collect, dest)(team, dest, source, nelems)
#define shmem_fcollect(team, dest, source, nelems) \
  MPF_SHMEM_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _fcollect, dest)(team, dest, source, nelems)
#define shmem_alltoall(team, dest, source, nelems) \
  MPF_SHMEM_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _alltoall, dest)(team, dest, source, nelems)
#define shmem_alltoalls(team, dest, source, dst, sst, nelems) \
  MPF_SHMEM_GENERIC(MPF_SHMEM_GENERIC_RMA_TYPES, _alltoalls, dest)(team, dest, source, dst, sst, nelems)

#define MPF_SHMEM_REDUCE(TABLE, FN, team, dest, source, nreduce) \
  MPF_SHMEM_GENERIC(TABLE, FN, dest)(team, dest, source, nreduce)
#define shmem_and_reduce(team, dest, source, nreduce) \
  MPF_SHMEM_REDUCE(MPF_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, _and_reduce, team, dest, source, nreduce)
#define shmem_or_reduce(team, dest, source, nreduce) \
  MPF_SHMEM_REDUCE(MPF_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, _or_reduce, team, dest, source, nreduce)
#define shmem_xor_reduce(team, dest, source, nreduce) \
  MPF_SHMEM_REDUCE(MPF_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, _xor_reduce, team, dest, source, nreduce)
#define shmem_min_reduce(team, dest, source, nreduce) \
  MPF_SHMEM_REDUCE(MPF_SHMEM_GENERIC_RMA_TYPES, _min_reduce, team, dest, source, nreduce)
#define shmem_max_reduce(team, dest, source, nreduce) \
  MPF_SHMEM_REDUCE(MPF_SHMEM_GENERIC_RMA_TYPES, _max_reduce, team, dest, source, nreduce)
#define shmem_sum_reduce(team, dest, source, nreduce) \
  MPF_SHMEM_REDUCE(MPF_SHMEM_GENERIC_ARITH_REDUCE_TYPES, _sum_reduce, team, dest, source, nreduce)
#define shmem_prod_reduce(team, dest, source, nreduce) \
  MPF_SHMEM_REDUCE(MPF_SHMEM_GENERIC_ARITH_REDUCE_TYPES, _prod_reduce, team, dest, source, nreduce)

/* ---- Every type of <shmem.h>'s tables has its association ----------------------------- */

#define MPF_SHMEM_ASSOC_ONE(FN, NAME, TYPE) , TYPE * : 1
#define MPF_SHMEM_COVERED(GENERIC_TABLE, TABLE, NAME, TYPE)                                         \
  _Static_assert(_Generic((TYPE *)0 GENERIC_TABLE(MPF_SHMEM_ASSOC_ONE, _), default: 0),             \
                 "shmem_generic.h: " #TYPE " (" #NAME ") of " #TABLE " has no association in " #GENERIC_TABLE);
#define MPF_SHMEM_COVERED_RMA(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_RMA_TYPES, MPF_SHMEM_RMA_TYPES, NAME, TYPE)
#define MPF_SHMEM_COVERED_AMO(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_AMO_TYPES, MPF_SHMEM_AMO_TYPES, NAME, TYPE)
#define MPF_SHMEM_COVERED_EXTENDED_AMO(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_EXTENDED_AMO_TYPES, MPF_SHMEM_EXTENDED_AMO_TYPES, NAME, TYPE)
#define MPF_SHMEM_COVERED_BITWISE_AMO(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_BITWISE_AMO_TYPES, MPF_SHMEM_BITWISE_AMO_TYPES, NAME, TYPE)
#define MPF_SHMEM_COVERED_SYNC(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_SYNC_TYPES, MPF_SHMEM_SYNC_TYPES, NAME, TYPE)
#define MPF_SHMEM_COVERED_BITWISE_REDUCE(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, MPF_SHMEM_BITWISE_REDUCE_TYPES, NAME, TYPE)
#define MPF_SHMEM_COVERED_MINMAX_REDUCE(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_RMA_TYPES, MPF_SHMEM_MINMAX_REDUCE_TYPES, NAME, TYPE)
#define MPF_SHMEM_COVERED_ARITH_REDUCE(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_ARITH_REDUCE_TYPES, MPF_SHMEM_ARITH_REDUCE_TYPES, NAME, TYPE)
#define MPF_SHMEM_COVERED_OLD_AMO(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_OLD_AMO_TYPES, MPF_SHMEM_OLD_AMO_TYPES, NAME, TYPE)
#define MPF_SHMEM_COVERED_OLD_EXTENDED_AMO(NAME, TYPE) \
  MPF_SHMEM_COVERED(MPF_SHMEM_GENERIC_OLD_EXTENDED_AMO_TYPES, MPF_SHMEM_OLD_EXTENDED_AMO_TYPES, NAME, TYPE)
MPF_SHMEM_RMA_TYPES(MPF_SHMEM_COVERED_RMA)
MPF_SHMEM_AMO_TYPES(MPF_SHMEM_COVERED_AMO)
MPF_SHMEM_EXTENDED_AMO_TYPES(MPF_SHMEM_COVERED_EXTENDED_AMO)
MPF_SHMEM_BITWISE_AMO_TYPES(MPF_SHMEM_COVERED_BITWISE_AMO)
MPF_SHMEM_SYNC_TYPES(MPF_SHMEM_COVERED_SYNC)
MPF_SHMEM_BITWISE_REDUCE_TYPES(MPF_SHMEM_COVERED_BITWISE_REDUCE)
MPF_SHMEM_MINMAX_REDUCE_TYPES(MPF_SHMEM_COVERED_MINMAX_REDUCE)
MPF_SHMEM_ARITH_REDUCE_TYPES(MPF_SHMEM_COVERED_ARITH_REDUCE)
MPF_SHMEM_OLD_AMO_TYPES(MPF_SHMEM_COVERED_OLD_AMO)
MPF_SHMEM_OLD_EXTENDED_AMO_TYPES(MPF_SHMEM_COVERED_OLD_EXTENDED_AMO)

#endif /* C11 */
#endif /* SHMEM_GENERIC_H */
