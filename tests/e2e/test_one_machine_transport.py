"""End-to-end: on a one-machine launch the executable starts Open MPI's shared-memory layer without first
probing the network layers (one_machine_transport.hpp says why), and a user's own choice of layer is kept.

Open MPI's `pml_base_verbose` lists the point-to-point layers MPI_Init opens. Skipped, saying so, where the MPI
library is not Open MPI (the variable is then ignored and nothing is to be seen).
"""

import os
import subprocess

import graphrf_e2e as e2e

COMMAND = ["info", "--graph", "grid:8x8", "-q"]


def init_log(extra_env, np=2):
    env = dict(e2e.MPI_ENV)
    env.update(os.environ)
    for name in ("OMPI_MCA_pml", "OMPI_MCA_mtl"):
        env.pop(name, None)
    env["OMPI_MCA_pml_base_verbose"] = "10"
    env.update(extra_env)
    cmd = [e2e.MPIEXEC, "-np", str(np)] + e2e.MPIEXEC_FLAGS + [e2e.GRAPHRF] + COMMAND
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                       timeout=120 * e2e.TIME_SCALE)
    return p.returncode, p.stdout.decode(errors="replace")


def test_one_machine_launch_opens_only_the_shared_memory_layer():
    code, log = init_log({})
    if "components_register" not in log:
        raise e2e.Skip("the MPI library is not Open MPI (no pml_base_verbose output)")
    assert code == 0, log
    assert "component ob1 selected" in log, log
    # The network layers are not even loaded (their search for hardware is what costs).
    assert "found loaded component cm" not in log, log
    assert "found loaded component ucx" not in log, log


def test_a_users_choice_of_layer_is_kept():
    # What `mpirun --mca pml ^ucx` hands its ranks: every layer but UCX, so `cm` is opened again.
    code, log = init_log({"OMPI_MCA_pml": "^ucx"})
    if "components_register" not in log:
        raise e2e.Skip("the MPI library is not Open MPI (no pml_base_verbose output)")
    assert code == 0, log
    assert "found loaded component cm" in log, log


if __name__ == "__main__":
    e2e.main(globals())
