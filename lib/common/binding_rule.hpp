// Whether mpfrun binds ranks to CPUs when the user did not say (--bind-to
// auto), shared with mpftune bench so that its comparisons run every MPI
// with the binding our users get.
//
// With more ranks than CPUs, each rank bound to one CPU (round-robin) runs
// oversubscribed jobs faster and steadier: unbound, the kernel places each
// woken rank where it likes, so which CPU a yielding rank keeps busy
// changes from wait to wait (token passing and collectives both measured
// faster bound). Only when the ranks divide evenly among the CPUs: with an uneven
// share (3 ranks on 2 CPUs) a bound job would run at the pace of the most
// crowded CPU, while the kernel balances an unbound one.
#pragma once

namespace mpf::common {

inline bool binds_by_default(long nranks, long ncpus) {
  return ncpus > 0 && nranks > ncpus && nranks % ncpus == 0;
}

}  // namespace mpf::common
