#pragma once
// Fault injection for the reliability tests (tests/e2e/test_faults.py): with GRAPHRF_FAULT_PAUSE_BEFORE_COMMIT=S
// in the environment, a writer pauses S seconds after its data is written and before it decides whether to
// publish the file, and says so on stderr, so a test can deliver a signal or kill a rank exactly inside the
// write phase. Unset (always, outside tests) it does nothing.
namespace graphrf {

// Pauses as described above; a termination signal recorded meanwhile ends the pause early. `where` names the
// output in the stderr line.
void fault_injection_pause_before_commit(const char* where);

}  // namespace graphrf
