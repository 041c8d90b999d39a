// The app shows the flags that fill the fields library errors name (src/cli/option_fields.cpp).
#include <gtest/gtest.h>

#include "graphrf/attention/feature_map.hpp"
#include "graphrf/attention/masked_attention.hpp"
#include "graphrf/cli/cli.hpp"
#include "graphrf/frames/frame_run.hpp"
#include "graphrf/grf/kernel.hpp"
#include "graphrf/io/graph_options.hpp"
#include "graphrf/points/point_graph.hpp"

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

// The message `fn` throws: the field it names, then what the app shows.
template <class F>
void expect_field_then_flag(F fn, const std::string& library, const std::string& app) {
  try {
    fn();
    ADD_FAILURE() << "expected an InputError: " << library;
  } catch (const InputError& e) {
    EXPECT_EQ(e.what(), library);
    EXPECT_EQ(with_option_flags(e.what()), app);
  }
}

TEST(OptionFields, AttentionFramesPointsAndGraphErrorsNameFields) {
  FeatureOptions features;
  features.kind = FeatureKind::favor;
  features.m = 7;
  features.antithetic = true;
  expect_field_then_flag([&] { FeatureMap map(features, 4); },
                         "features.m: features.antithetic pairs every frequency w with -w, so m must be even (got 7)",
                         "--num-features: --antithetic pairs every frequency w with -w, so m must be even (got 7)");
  expect_field_then_flag([] { parse_bad_normalizer("never"); },
                         "attention.normalizer: expected error, clamp or skip (got 'never')",
                         "--on-bad-normalizer: expected error, clamp or skip (got 'never')");
  expect_field_then_flag([] { parse_frame_output_type("int8"); }, "frames.output_type: expected float64 or float32 (got 'int8')",
                         "--frames-dtype: expected float64 or float32 (got 'int8')");
  PointGraphOptions points;
  points.knn = 2;
  points.radius = 1;
  expect_field_then_flag([&] { validate(points, 10); },
                         "point_graph.knn / point_graph.radius: give exactly one of them, positive",
                         "--knn / --radius: give exactly one of them, positive");
  expect_field_then_flag([] { parse_duplicate_policy("min"); },
                         "graph.duplicates: unknown policy 'min' (expected sum, max or error)",
                         "--duplicates: unknown policy 'min' (expected sum, max or error)");
  // A file name that is a field name stays as it is after a folder or a hyphen.
  EXPECT_EQ(with_option_flags("--test /data/graph.ids: line 2, my-graph.ids"), "--test /data/graph.ids: line 2, my-graph.ids");
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
