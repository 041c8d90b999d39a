#pragma once
// After some failures a library's state cannot be shut down cleanly: an HDF5 file whose writes failed (a full
// disk) keeps dirty metadata that MPI_Finalize would try to flush, and the ranks then wait in different
// collectives forever. The code that sees such a failure marks it here; the main guard then ends the job with
// MPI_Abort after printing its one error line, instead of finalising.
namespace graphrf {

void mark_unrecoverable();
bool is_unrecoverable();

}  // namespace graphrf
