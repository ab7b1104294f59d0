// libfabric, loaded when a job first needs the network (dlopen), never at
// program start: the providers it links (PSM's among them) install signal
// handlers when they load, which turned every crash of every program into
// "exit 1" and hid the signal from mpfrun. Loading late, and putting the
// program's handlers back right after, keeps a crash a crash. The five
// functions here are all libfabric exports the transport calls; the rest of
// its API is inline calls through the objects' operation tables.
#pragma once

#include <rdma/fabric.h>

namespace mpf::net {

struct FabricLibrary {
  decltype(&::fi_getinfo) getinfo;
  decltype(&::fi_freeinfo) freeinfo;
  decltype(&::fi_dupinfo) dupinfo;
  decltype(&::fi_fabric) fabric;
  decltype(&::fi_strerror) strerror;
};

// The library, loaded on first use. Throws NetError when it cannot be.
const FabricLibrary& fabric_library();

}  // namespace mpf::net
