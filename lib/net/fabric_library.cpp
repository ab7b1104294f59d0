#include "net/fabric_library.hpp"

#include <dlfcn.h>
#include <signal.h>

#include <array>
#include <string>

#include "net/fabric.hpp"

namespace mpf::net {
namespace {

FabricLibrary load() {
  constexpr std::array kSignals{SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM};
  std::array<struct sigaction, kSignals.size()> before{};
  for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], nullptr, &before[i]);
  void* handle = ::dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
  for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &before[i], nullptr);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    throw NetError(std::string("cannot load libfabric (libfabric.so.1; Debian package libfabric1): ") +
                   (why != nullptr ? why : "unknown error"));
  }
  auto symbol = [handle](const char* name) {
    void* s = ::dlsym(handle, name);
    if (s == nullptr) throw NetError(std::string("libfabric.so.1 has no ") + name + ": too old a libfabric");
    return s;
  };
  return {reinterpret_cast<decltype(&::fi_getinfo)>(symbol("fi_getinfo")),
          reinterpret_cast<decltype(&::fi_freeinfo)>(symbol("fi_freeinfo")),
          reinterpret_cast<decltype(&::fi_dupinfo)>(symbol("fi_dupinfo")),
          reinterpret_cast<decltype(&::fi_fabric)>(symbol("fi_fabric")),
          reinterpret_cast<decltype(&::fi_strerror)>(symbol("fi_strerror"))};
}

}  // namespace

const FabricLibrary& fabric_library() {
  static const FabricLibrary library = load();
  return library;
}

}  // namespace mpf::net
