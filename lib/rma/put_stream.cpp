#include "rma/put_stream.hpp"

#include "common/streaming_copy.hpp"
#include "core/runtime.hpp"

namespace mpf::rma {

std::uint64_t put_stream_threshold() {
  static const std::uint64_t bytes = [] {
    const auto configured =
        static_cast<std::uint64_t>(core::Runtime::instance().tunables().integer(common::Tunable::rma_stream_copy));
    return configured > 0 ? configured : common::stream_threshold(0) / 4;
  }();
  return bytes;
}

}  // namespace mpf::rma
