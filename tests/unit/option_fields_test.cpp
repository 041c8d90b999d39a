// The app shows the flags that fill the fields library errors name (src/cli/option_fields.cpp).
#include <gtest/gtest.h>

#include "graphrf/cli/cli.hpp"
#include "graphrf/grf/kernel.hpp"

namespace graphrf {
namespace {

TEST(OptionFields, LibraryErrorsNameFieldsTheAppShowsFlags) {
  try {
    KernelSpec spec;
    spec.beta = -1;
    validate_parameters(spec);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "kernel.beta: diffusion needs beta > 0 (got -1)");
    EXPECT_EQ(with_option_flags(e.what()), "--beta: diffusion needs beta > 0 (got -1)");
  }
}

TEST(OptionFields, EveryFieldAMessageNamesIsMappedAndNothingElse) {
  EXPECT_EQ(with_option_flags("walk.coupling sigma: needs a permutation, walk.sigma FILE"),
            "--coupling sigma: needs a permutation, --sigma FILE");
  EXPECT_EQ(with_option_flags("--walkers-list: item '0': walk.walkers: must be >= 1 (got 0)"),
            "--walkers-list: item '0': --walkers: must be >= 1 (got 0)");
  EXPECT_EQ(with_option_flags("wavelet.rank: K must be >= 1"), "--embedding-dim: K must be >= 1");
  // Only whole names: a longer name, a file name or a word that merely contains one stays as it is.
  EXPECT_EQ(with_option_flags("walk.sigma_x: kernel.betas my.walk.p_halt"), "walk.sigma_x: kernel.betas my.walk.p_halt");
  EXPECT_EQ(with_option_flags("graph.txt:3: bad line"), "graph.txt:3: bad line");
}

}  // namespace
}  // namespace graphrf
