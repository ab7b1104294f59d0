// The library's progress engine: BasicEngine over the routed transport,
// shared memory on the node and the network beyond it (see engine.hpp).
#include "progress/engine_impl.hpp"

namespace mpf::progress {

template class BasicEngine<transport::Routed>;

}  // namespace mpf::progress
