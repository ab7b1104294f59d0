#include "mpi/coll_launch.hpp"

#include "coll/algorithms/context.hpp"
#include "mpi/comm.hpp"
#include "mpi/requests.hpp"

namespace mpf::mpi {

int launch(const char* call, MPI_Comm comm, int root, mpf::coll::Task op, MPI_Request* request, bool independent,
           std::shared_ptr<const CollectiveError> error) {
  if (request == nullptr) {
    mpf::coll::run(std::move(op), comm_of(comm), call, root);
    return MPI_SUCCESS;
  }
  auto pending = std::make_shared<mpf::coll::PendingCollective>();
  pending->task = std::move(op);
  pending->group = share_comm(comm);
  pending->error = std::move(error);
  MPI_Request handle = MPI_REQUEST_NULL;
  MpiRequest& r = requests().add(&handle);
  r.call = call;
  r.comm = comm;
  r.active = true;
  r.coll = pending;
  // The call's end comes when the operation completes, not when the
  // CollectiveScope of the starting call closes.
  const Communicator& c = comm_of(comm);
  pending->call = c.current();
  pending->counted = c.current_open;
  c.current_open = false;
  mpf::coll::start_pending(pending, independent);
  *request = handle;
  return MPI_SUCCESS;
}

}  // namespace mpf::mpi
