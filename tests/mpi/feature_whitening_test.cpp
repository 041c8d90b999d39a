// Distributed parts of the feature maps: DARKFormer whitening from query/key rows spread unevenly over
// ranks, collective errors for a singular covariance, frequencies identical on every rank, and the global
// key stabiliser. Runs at any rank count (registered at 1-4).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/attention/feature_map.hpp"
#include "graphrf/attention/whitening.hpp"

using namespace graphrf;
namespace {

// Not mpi/mpi_test_support.hpp: it pulls in the graph pipeline, which does not compile on this branch
// until the format parsers land, and these tests need only the communicator.
const Communicator& world() {
  static const Communicator comm(MPI_COMM_WORLD);
  return comm;
}

constexpr int kD = 4;

// FNV-1a over the bytes of a matrix: equal checksums on every rank mean bit-identical matrices.
std::uint64_t checksum(const Eigen::MatrixXd& m) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* p = reinterpret_cast<const unsigned char*>(m.data());
  for (std::size_t i = 0; i < static_cast<std::size_t>(m.size()) * sizeof(double); ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h ^ static_cast<std::uint64_t>(m.rows() * 131 + m.cols());
}

bool same_on_every_rank(const Eigen::MatrixXd& m) {
  const auto all = world().allgather(checksum(m));
  for (auto c : all)
    if (c != all[0]) return false;
  return true;
}

// Global row g (of `kind` 0 = queries, 1 = keys): mean + A z with z ~ N(0, I_4) keyed by the global row,
// so the data set is the same whatever the rank count. A is lower triangular with scales 3 .. 0.05, so the
// covariance A A^T has condition number ~4e3. `rank2` puts the data in a 2-D subspace (singular covariance).
Eigen::RowVectorXd data_row(std::int64_t g, int kind, bool rank2) {
  const auto w = philox_block(11, RngDomain::synthetic_data, static_cast<std::uint64_t>(g), static_cast<std::uint64_t>(kind));
  const auto [z0, z1] = standard_normal_pair(w[0], w[1]);
  const auto [z2, z3] = standard_normal_pair(w[2], w[3]);
  Eigen::Vector4d z(z0, z1, z2, z3);
  Eigen::Matrix4d a;
  a << 3.0, 0, 0, 0,     //
      0.8, 1.0, 0, 0,    //
      -0.5, 0.2, 0.3, 0,  //
      0.1, -0.3, 0.05, 0.05;
  if (rank2) a.rightCols(2).setZero();
  const Eigen::Vector4d mean(5.0, -2.0, 1.0, 0.5);
  return (mean + a * z).transpose();
}

Eigen::MatrixXd global_rows(std::int64_t begin, std::int64_t end, int kind, bool rank2) {
  Eigen::MatrixXd x(end - begin, kD);
  for (std::int64_t g = begin; g < end; ++g) x.row(g - begin) = data_row(g, kind, rank2);
  return x;
}

// An uneven block of [0, n): rank r's share is proportional to weight(r) (some ranks get nothing).
std::pair<std::int64_t, std::int64_t> uneven_block(std::int64_t n, bool reverse) {
  const int p = world().size(), r = world().rank();
  auto weight = [&](int k) -> std::int64_t {
    const int j = reverse ? p - 1 - k : k;
    return j == 1 ? 0 : (j + 1) * (j + 1);  // 1, 0, 9, 16, ...
  };
  std::int64_t total = 0, before = 0;
  for (int k = 0; k < p; ++k) {
    if (k < r) before += weight(k);
    total += weight(k);
  }
  if (total == 0) return {0, r == 0 ? n : 0};
  return {n * before / total, n * (before + weight(r)) / total};
}

struct Split {
  Eigen::MatrixXd local_q, local_k, all;  // all: every pooled row, scaled
};

Split make_split(std::int64_t nq, std::int64_t nk, bool rank2, double scale) {
  Split s;
  const auto [q0, q1] = uneven_block(nq, false);
  const auto [k0, k1] = uneven_block(nk, true);
  s.local_q = global_rows(q0, q1, 0, rank2);
  s.local_k = global_rows(k0, k1, 1, rank2);
  s.all.resize(nq + nk, kD);
  s.all << global_rows(0, nq, 0, rank2), global_rows(0, nk, 1, rank2);
  s.all *= scale;
  return s;
}

Eigen::MatrixXd dense_covariance(const Eigen::MatrixXd& x) {
  const Eigen::RowVectorXd mean = x.colwise().mean();
  const Eigen::MatrixXd c = x.rowwise() - mean;
  return c.transpose() * c / static_cast<double>(x.rows() - 1);
}

double dark_scale() {
  FeatureOptions o;
  o.kind = FeatureKind::dark;
  return feature_input_scale(o, kD, FeatureRole::query);
}

}  // namespace

TEST(FeatureWhitening, WhitensUnevenlySpreadRowsIdenticallyOnEveryRank) {
  const double scale = dark_scale();
  EXPECT_DOUBLE_EQ(scale, std::pow(4.0, -0.25));
  const Split s = make_split(300, 250, false, scale);
  const PooledMoments pm = pooled_moments(world(), s.local_q, s.local_k, kD, scale);
  EXPECT_EQ(pm.count, 550);
  const Eigen::MatrixXd c = dense_covariance(s.all);
  EXPECT_TRUE(pm.mean.isApprox(s.all.colwise().mean().transpose(), 1e-13));
  EXPECT_TRUE(pm.covariance.isApprox(c, 1e-12));

  const Eigen::MatrixXd m = whitening_matrix(world(), s.local_q, s.local_k, kD, scale);
  // Cov(M x) = M C M = I. cond(C) ~ 4e3, so rounding leaves ~1e-12; the bound is 1e-10.
  const Eigen::MatrixXd white = m * c * m.transpose();
  EXPECT_LT((white - Eigen::MatrixXd::Identity(kD, kD)).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_EQ(m, m.transpose());
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(m).eigenvalues().minCoeff(), 0.0);
  EXPECT_TRUE(same_on_every_rank(m));
  EXPECT_TRUE(same_on_every_rank(pm.covariance));
  // Deterministic for a fixed rank count: a second run gives the same bits.
  EXPECT_EQ(whitening_matrix(world(), s.local_q, s.local_k, kD, scale), m);

  // The whitened dark map is usable: its features on every rank agree.
  FeatureOptions o;
  o.kind = FeatureKind::dark;
  o.m = 8;
  const FeatureMap f(o, kD, &m);
  EXPECT_TRUE(same_on_every_rank(f.frequencies()));
}

TEST(FeatureWhitening, SingularCovarianceThrowsOneCollectiveInputErrorOnEveryRank) {
  const double scale = dark_scale();
  const Split s = make_split(200, 100, true, scale);
  int threw = 0;
  try {
    whitening_matrix(world(), s.local_q, s.local_k, kD, scale);
  } catch (const InputError& e) {
    threw = 1;
    EXPECT_TRUE(e.collective());
    const std::string what = e.what();
    EXPECT_NE(what.find("features.kind dark"), std::string::npos) << what;
    EXPECT_NE(what.find("singular"), std::string::npos) << what;
    EXPECT_NE(what.find("attention.dark_ridge"), std::string::npos) << what;
  }
  EXPECT_EQ(threw, 1);
  EXPECT_EQ(world().min(threw), 1);  // every rank threw

  // A ridge regularises it: M (C + eps I) M = I. cond(C + 1e-3 I) ~ 1e4.
  const double ridge = 1e-3;
  const Eigen::MatrixXd m = whitening_matrix(world(), s.local_q, s.local_k, kD, scale, ridge);
  const Eigen::MatrixXd c = dense_covariance(s.all) + ridge * Eigen::MatrixXd::Identity(kD, kD);
  EXPECT_LT((m * c * m - Eigen::MatrixXd::Identity(kD, kD)).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_TRUE(same_on_every_rank(m));
}

TEST(FeatureWhitening, TooFewRowsAndBadRidgeAreCollectiveInputErrors) {
  const double scale = dark_scale();
  // One pooled row in total (on rank 0).
  const Eigen::MatrixXd one = world().is_root() ? global_rows(0, 1, 0, false) : Eigen::MatrixXd(0, kD);
  const Eigen::MatrixXd none(0, kD);
  auto expect_collective = [](auto&& f, const std::string& needle) {
    int threw = 0;
    try {
      f();
    } catch (const InputError& e) {
      threw = 1;
      EXPECT_TRUE(e.collective());
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_EQ(world().min(threw), 1);
  };
  expect_collective([&] { whitening_matrix(world(), one, none, kD, scale); }, "at least 2");
  const Split s = make_split(50, 50, false, scale);
  expect_collective([&] { whitening_matrix(world(), s.local_q, s.local_k, kD, scale, -1.0); }, "attention.dark_ridge:");
}

TEST(FeatureDistributed, FrequenciesAndFeaturesAreIdenticalOnEveryRank) {
  const Eigen::MatrixXd mr = Eigen::MatrixXd::Identity(3, kD) * 0.7;
  const Eigen::MatrixXd x = global_rows(0, 5, 0, false);
  for (auto kind : {FeatureKind::favor, FeatureKind::trig, FeatureKind::dark})
    for (auto draw : {FrequencyDraw::iid, FrequencyDraw::orthogonal, FrequencyDraw::orthogonal_pnc}) {
      FeatureOptions o;
      o.kind = kind;
      o.draw = draw;
      o.m = 10;
      o.antithetic = kind != FeatureKind::trig;
      o.seed = 2024;
      const FeatureMap f(o, kD, kind == FeatureKind::dark ? &mr : nullptr);
      EXPECT_TRUE(same_on_every_rank(f.frequencies())) << feature_kind_name(kind) << " " << frequency_draw_name(draw);
      EXPECT_TRUE(same_on_every_rank(f.apply(x, FeatureRole::query)));
    }
}

TEST(FeatureDistributed, GlobalKeyShiftGivesTheSameKeyFeaturesAsOneRank) {
  // Keys spread unevenly; the allreduced max of the local key logits is the single-rank shift exactly
  // (max is exact), so each rank's key features equal the matching rows of a one-rank computation.
  const std::int64_t nk = 37;
  const auto [k0, k1] = uneven_block(nk, false);
  const Eigen::MatrixXd all = global_rows(0, nk, 1, false) * 0.4;
  const Eigen::MatrixXd local = all.middleRows(k0, k1 - k0);
  for (auto kind : {FeatureKind::favor, FeatureKind::trig}) {
    FeatureOptions o;
    o.kind = kind;
    o.m = 12;
    const FeatureMap f(o, kD);
    const double shift = world().max(f.key_max_logit(local));
    EXPECT_EQ(shift, f.key_max_logit(all));
    const Eigen::MatrixXd mine = f.apply(local, FeatureRole::key, shift);
    const Eigen::MatrixXd reference = f.apply(all, FeatureRole::key, f.key_max_logit(all)).middleRows(k0, k1 - k0);
    ASSERT_EQ(mine.rows(), reference.rows());
    if (mine.rows() > 0) {
      EXPECT_LT((mine - reference).cwiseAbs().maxCoeff(), 1e-15 * reference.cwiseAbs().maxCoeff());
    }
  }
}
