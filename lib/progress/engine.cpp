// The library's progress engine: BasicEngine over the shared-memory
// transport (see engine.hpp).
#include "progress/engine_impl.hpp"

namespace mpf::progress {

template class BasicEngine<shm::Transport>;

}  // namespace mpf::progress
