#pragma once
// The one driver that publishes a run's Report: its labelled figures as log lines and its RESULT line on rank 0,
// and its figures' HDF5 attributes in the output file.
#include "graphrf/core/report.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/mpi/log.hpp"

namespace graphrf {

// Rank 0: one log line "result      LABEL = VALUE" per labelled figure, then "RESULT k=v ...". Not collective.
void print_report(const Log& log, const Report& report);
// Collective: every figure's attributes (integers as int64, doubles as double, text as a string). The same report
// on every rank.
void write_report(H5Output& out, const Report& report);

}  // namespace graphrf
