#pragma once
// A named kernel spec in one call, for the kernel and dense-reference tests.
#include "graphrf/grf/kernel.hpp"

namespace graphrf::testing {

inline KernelSpec named(KernelKind kind, double beta = 1.0, double power = 1.0, double shift = 2.0) {
  KernelSpec s;
  s.kind = kind;
  s.beta = beta;
  s.power = power;
  s.shift = shift;
  return s;
}

}  // namespace graphrf::testing
