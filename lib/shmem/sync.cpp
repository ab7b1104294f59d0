// Point-to-point synchronization: wait_until and test on one word or on
// arrays of them (_all, _any, _some, with one comparison value or a
// vector of them), for every type of the standard's table, and the
// deprecated shmem_TYPE_wait.
#include <shmem.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "shmem/amo.hpp"
#include "shmem/wait.hpp"

namespace mpf::shmem {
namespace {

void check_cmp(const char* call, int cmp) {
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) {
    fail(call, "comparison " + std::to_string(cmp) + " is not one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE");
  }
}

template <class T>
bool satisfies(T a, int cmp, T b) {
  switch (cmp) {
    case SHMEM_CMP_EQ:
      return a == b;
    case SHMEM_CMP_NE:
      return a != b;
    case SHMEM_CMP_GT:
      return a > b;
    case SHMEM_CMP_GE:
      return a >= b;
    case SHMEM_CMP_LT:
      return a < b;
    default:
      return a <= b;
  }
}

template <class T>
T load(const T* word) {
  return std::atomic_ref<T>(*const_cast<T*>(word)).load(std::memory_order_acquire);
}

// The words a call may watch: symmetric (nobody else could write them)
// and aligned.
template <class T>
void check_words(const char* call, const T* words, std::size_t n) {
  require_initialized(call);
  if (n == 0) return;
  if (reinterpret_cast<std::uintptr_t>(words) % sizeof(T) != 0) fail_misaligned(call, words, sizeof(T));
  if (symmetric_ref_of(words, sizeof(T) * n) == 0) fail_not_symmetric(call, words, sizeof(T) * n, "the watched object");
}

// The comparison value of element i: one for all, or a vector's.
template <class T>
struct OneValue {
  T value;
  T operator()(std::size_t) const { return value; }
};
template <class T>
struct VectorValues {
  const T* values;
  T operator()(std::size_t i) const { return values[i]; }
};

bool included(const int* status, std::size_t i) { return status == nullptr || status[i] == 0; }

// Whether any element is left in (the _any and _some forms return at
// once when none is).
bool any_included(std::size_t n, const int* status) {
  for (std::size_t i = 0; i < n; ++i) {
    if (included(status, i)) return true;
  }
  return false;
}

template <class T, class Values>
bool all_satisfied(const T* ivars, std::size_t n, const int* status, int cmp, const Values& values) {
  for (std::size_t i = 0; i < n; ++i) {
    if (included(status, i) && !satisfies(load(&ivars[i]), cmp, values(i))) return false;
  }
  return true;
}

template <class T, class Values>
std::size_t first_satisfied(const T* ivars, std::size_t n, const int* status, int cmp, const Values& values) {
  for (std::size_t i = 0; i < n; ++i) {
    if (included(status, i) && satisfies(load(&ivars[i]), cmp, values(i))) return i;
  }
  return SIZE_MAX;
}

template <class T, class Values>
std::size_t satisfied_indices(const T* ivars, std::size_t n, std::size_t* indices, const int* status, int cmp,
                              const Values& values) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (included(status, i) && satisfies(load(&ivars[i]), cmp, values(i))) indices[found++] = i;
  }
  return found;
}

template <class T, class Values>
symmetric::PeWait record(const char* call, const T* ivars, std::size_t n, int cmp, const Values& values) {
  return wait_record(symmetric::WaitWhat::until, call, ivars, static_cast<std::uint32_t>(n), cmp, values(0));
}

}  // namespace

template <class T>
void wait_until(const char* call, T* ivar, int cmp, T value) {
  check_cmp(call, cmp);
  check_words(call, ivar, 1);
  if (satisfies(load(ivar), cmp, value)) return;
  wait_for(call, wait_record(symmetric::WaitWhat::until, call, ivar, 1, cmp, value),
           [&] { return satisfies(load(ivar), cmp, value); });
}

template <class T, class Values>
void wait_until_all(const char* call, T* ivars, std::size_t n, const int* status, int cmp, const Values& values) {
  check_cmp(call, cmp);
  check_words(call, ivars, n);
  if (all_satisfied(ivars, n, status, cmp, values)) return;
  wait_for(call, record(call, ivars, n, cmp, values), [&] { return all_satisfied(ivars, n, status, cmp, values); });
}

template <class T, class Values>
std::size_t wait_until_any(const char* call, T* ivars, std::size_t n, const int* status, int cmp,
                           const Values& values) {
  check_cmp(call, cmp);
  check_words(call, ivars, n);
  if (!any_included(n, status)) return SIZE_MAX;
  std::size_t found = first_satisfied(ivars, n, status, cmp, values);
  if (found != SIZE_MAX) return found;
  wait_for(call, record(call, ivars, n, cmp, values), [&] {
    found = first_satisfied(ivars, n, status, cmp, values);
    return found != SIZE_MAX;
  });
  return found;
}

template <class T, class Values>
std::size_t wait_until_some(const char* call, T* ivars, std::size_t n, std::size_t* indices, const int* status, int cmp,
                            const Values& values) {
  check_cmp(call, cmp);
  check_words(call, ivars, n);
  if (!any_included(n, status)) return 0;
  std::size_t found = satisfied_indices(ivars, n, indices, status, cmp, values);
  if (found > 0) return found;
  wait_for(call, record(call, ivars, n, cmp, values), [&] {
    found = satisfied_indices(ivars, n, indices, status, cmp, values);
    return found > 0;
  });
  return found;
}

template <class T>
int test(const char* call, T* ivar, int cmp, T value) {
  check_cmp(call, cmp);
  check_words(call, ivar, 1);
  core::Runtime::instance().engine().progress();
  return satisfies(load(ivar), cmp, value) ? 1 : 0;
}

template <class T, class Values>
int test_all(const char* call, T* ivars, std::size_t n, const int* status, int cmp, const Values& values) {
  check_cmp(call, cmp);
  check_words(call, ivars, n);
  core::Runtime::instance().engine().progress();
  return all_satisfied(ivars, n, status, cmp, values) ? 1 : 0;
}

template <class T, class Values>
std::size_t test_any(const char* call, T* ivars, std::size_t n, const int* status, int cmp, const Values& values) {
  check_cmp(call, cmp);
  check_words(call, ivars, n);
  core::Runtime::instance().engine().progress();
  return first_satisfied(ivars, n, status, cmp, values);
}

template <class T, class Values>
std::size_t test_some(const char* call, T* ivars, std::size_t n, std::size_t* indices, const int* status, int cmp,
                      const Values& values) {
  check_cmp(call, cmp);
  check_words(call, ivars, n);
  core::Runtime::instance().engine().progress();
  return satisfied_indices(ivars, n, indices, status, cmp, values);
}

uint64_t signal_wait_until(std::uint64_t* sig_addr, int cmp, std::uint64_t value) {
  const char* call = "shmem_signal_wait_until";
  check_cmp(call, cmp);
  check_words(call, sig_addr, 1);
  std::uint64_t seen = load(sig_addr);
  if (satisfies(seen, cmp, value)) return seen;
  wait_for(call, wait_record(symmetric::WaitWhat::signal, call, sig_addr, 1, cmp, value), [&] {
    seen = load(sig_addr);
    return satisfies(seen, cmp, value);
  });
  return seen;
}

}  // namespace mpf::shmem

using mpf::shmem::OneValue;
using mpf::shmem::VectorValues;

extern "C" {

#define MPF_DEFINE_SYNC(NAME, TYPE)                                                                                   \
  void pshmem_##NAME##_wait_until(TYPE* ivar, int cmp, TYPE cmp_value) {                                              \
    mpf::shmem::wait_until("shmem_" #NAME "_wait_until", ivar, cmp, cmp_value);                                       \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_wait_until)                                                                                   \
  void pshmem_##NAME##_wait_until_all(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE cmp_value) {       \
    mpf::shmem::wait_until_all("shmem_" #NAME "_wait_until_all", ivars, nelems, status, cmp,                          \
                               OneValue<TYPE>{cmp_value});                                                            \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_wait_until_all)                                                                               \
  size_t pshmem_##NAME##_wait_until_any(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE cmp_value) {     \
    return mpf::shmem::wait_until_any("shmem_" #NAME "_wait_until_any", ivars, nelems, status, cmp,                   \
                                      OneValue<TYPE>{cmp_value});                                                     \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_wait_until_any)                                                                               \
  size_t pshmem_##NAME##_wait_until_some(TYPE* ivars, size_t nelems, size_t* indices, const int* status, int cmp,     \
                                         TYPE cmp_value) {                                                            \
    return mpf::shmem::wait_until_some("shmem_" #NAME "_wait_until_some", ivars, nelems, indices, status, cmp,        \
                                       OneValue<TYPE>{cmp_value});                                                    \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_wait_until_some)                                                                              \
  void pshmem_##NAME##_wait_until_all_vector(TYPE* ivars, size_t nelems, const int* status, int cmp,                  \
                                             TYPE* cmp_values) {                                                      \
    mpf::shmem::wait_until_all("shmem_" #NAME "_wait_until_all_vector", ivars, nelems, status, cmp,                   \
                               VectorValues<TYPE>{cmp_values});                                                       \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_wait_until_all_vector)                                                                        \
  size_t pshmem_##NAME##_wait_until_any_vector(TYPE* ivars, size_t nelems, const int* status, int cmp,                \
                                               TYPE* cmp_values) {                                                    \
    return mpf::shmem::wait_until_any("shmem_" #NAME "_wait_until_any_vector", ivars, nelems, status, cmp,            \
                                      VectorValues<TYPE>{cmp_values});                                                \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_wait_until_any_vector)                                                                        \
  size_t pshmem_##NAME##_wait_until_some_vector(TYPE* ivars, size_t nelems, size_t* indices, const int* status,       \
                                                int cmp, TYPE* cmp_values) {                                          \
    return mpf::shmem::wait_until_some("shmem_" #NAME "_wait_until_some_vector", ivars, nelems, indices, status, cmp, \
                                       VectorValues<TYPE>{cmp_values});                                               \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_wait_until_some_vector)                                                                       \
  int pshmem_##NAME##_test(TYPE* ivar, int cmp, TYPE cmp_value) {                                                     \
    return mpf::shmem::test("shmem_" #NAME "_test", ivar, cmp, cmp_value);                                            \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_test)                                                                                         \
  int pshmem_##NAME##_test_all(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE cmp_value) {              \
    return mpf::shmem::test_all("shmem_" #NAME "_test_all", ivars, nelems, status, cmp, OneValue<TYPE>{cmp_value});   \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_test_all)                                                                                     \
  size_t pshmem_##NAME##_test_any(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE cmp_value) {           \
    return mpf::shmem::test_any("shmem_" #NAME "_test_any", ivars, nelems, status, cmp, OneValue<TYPE>{cmp_value});   \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_test_any)                                                                                     \
  size_t pshmem_##NAME##_test_some(TYPE* ivars, size_t nelems, size_t* indices, const int* status, int cmp,           \
                                   TYPE cmp_value) {                                                                  \
    return mpf::shmem::test_some("shmem_" #NAME "_test_some", ivars, nelems, indices, status, cmp,                    \
                                 OneValue<TYPE>{cmp_value});                                                          \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_test_some)                                                                                    \
  int pshmem_##NAME##_test_all_vector(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE* cmp_values) {     \
    return mpf::shmem::test_all("shmem_" #NAME "_test_all_vector", ivars, nelems, status, cmp,                        \
                                VectorValues<TYPE>{cmp_values});                                                      \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_test_all_vector)                                                                              \
  size_t pshmem_##NAME##_test_any_vector(TYPE* ivars, size_t nelems, const int* status, int cmp, TYPE* cmp_values) {  \
    return mpf::shmem::test_any("shmem_" #NAME "_test_any_vector", ivars, nelems, status, cmp,                        \
                                VectorValues<TYPE>{cmp_values});                                                      \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_test_any_vector)                                                                              \
  size_t pshmem_##NAME##_test_some_vector(TYPE* ivars, size_t nelems, size_t* indices, const int* status, int cmp,    \
                                          TYPE* cmp_values) {                                                         \
    return mpf::shmem::test_some("shmem_" #NAME "_test_some_vector", ivars, nelems, indices, status, cmp,             \
                                 VectorValues<TYPE>{cmp_values});                                                     \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_test_some_vector)
MPF_SHMEM_SYNC_TYPES(MPF_DEFINE_SYNC)

#define MPF_DEFINE_OLD_WAIT(NAME, TYPE)                                            \
  void pshmem_##NAME##_wait(TYPE* ivar, TYPE cmp_value) {                          \
    mpf::shmem::wait_until("shmem_" #NAME "_wait", ivar, SHMEM_CMP_NE, cmp_value); \
  }                                                                                \
  MPF_SHMEM_WEAK(NAME##_wait)
MPF_SHMEM_OLD_WAIT_TYPES(MPF_DEFINE_OLD_WAIT)

void pshmem_wait(long* ivar, long cmp_value) { mpf::shmem::wait_until("shmem_wait", ivar, SHMEM_CMP_NE, cmp_value); }
MPF_SHMEM_WEAK(wait)

uint64_t pshmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  return mpf::shmem::signal_wait_until(sig_addr, cmp, cmp_value);
}
MPF_SHMEM_WEAK(signal_wait_until)

}  // extern "C"
