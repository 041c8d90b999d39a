#!/usr/bin/env bash
# Installs the Debian 12 packages graphrf needs to build, to run its tests (MPI, parallel HDF5 readers in
# Python), to build its Python package and to run its Slurm test. Fast when everything is already installed: dpkg-query decides, and
# apt-get (update, then install) runs only when something is missing. Works as root or through sudo.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake git pkg-config
  # MPI, parallel HDF5 (+ h5dump etc.), partitioners, numerics, CLI, tests, counter-based RNG
  openmpi-bin libopenmpi-dev
  libhdf5-openmpi-dev hdf5-tools
  libmetis-dev libscotchparmetis-dev libptscotch-dev
  libeigen3-dev
  libboost-dev libboost-program-options-dev
  libgtest-dev
  librandom123-dev
  libnanoflann-dev
  # Slurm test: a throwaway single-node Slurm with munge authentication
  slurm-wlm munge
  # fuzzing the text parsers (libFuzzer: -fsanitize=fuzzer)
  clang-14 libclang-rt-14-dev
  # end-to-end checks read the HDF5 output with Debian's python3
  python3 python3-h5py python3-scipy python3-numpy python3-matplotlib
  # readers users use: anndata reads /grf and /graph through its own element reader (Debian 12: 0.8)
  python3-anndata
  # the Python package (import graphrf): its pybind11 module, PyTorch autograd, mpi4py communicators, pytest
  python3-pybind11 pybind11-dev python3-torch python3-mpi4py python3-pytest
)

# One dpkg-query for all: "name status" for every package dpkg knows; unknown ones are simply absent.
declare -A installed=()
while read -r name status; do
  [[ "$status" == ii* ]] && installed[${name%%:*}]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${PACKAGES[@]}" 2>/dev/null || true)
missing=()
for p in "${PACKAGES[@]}"; do
  [[ -n "${installed[$p]:-}" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install-deps: missing packages (${missing[*]}) and neither root nor sudo is available" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
