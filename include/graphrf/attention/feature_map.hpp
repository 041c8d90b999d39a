#pragma once
// Feature maps phi: R^d -> R^m for the queries and keys of linear attention, kappa(q, k) ~ phi(q)^T phi(k).
//
//   relu   phi(x) = max(s x, 0) + relu_epsilon, m = d. s = 1/sqrt(d) for queries when relu_scale (as Scenic
//          does; a per-query factor, so it only changes the weight of the epsilon), else 1.
//   elu1   phi(x) = elu(x) + 1 = x + 1 (x > 0), exp(x) (x <= 0), m = d (Katharopoulos et al. 2020).
//   favor  Performer FAVOR+ positive random features for the softmax kernel (Choromanski et al. 2021). With
//          x = d^-1/4 input and frequencies w_i ~ N(0, I_d) (marginally; see random_projection.hpp),
//            phi(x)_i = m^-1/2 exp(w_i^T x - |x|^2/2),   E[phi(q)^T phi(k)] = exp(q^T k / sqrt(d)).
//          With --draw importance (favor only): w_i ~ N(0, Sigma*) and phi(x)_i gets the factor sqrt(p_I(w_i)/psi(w_i)),
//          still unbiased for the softmax kernel (importance_sampling.hpp, Farzam et al. 2026, Lemma 3.1, Thm 3.2).
//   trig   random Fourier features (Rahimi and Recht 2007) times h(x) = exp(|x|^2/2), for the same softmax
//          kernel: m/2 frequencies w_i, x = d^-1/4 input, and the blocked layout
//            phi(x) = sqrt(2/m) exp(|x|^2/2) [cos(w_1^T x) .. cos(w_{m/2}^T x), sin(w_1^T x) .. sin(w_{m/2}^T x)],
//          so phi(q)^T phi(k) = (2/m) h(q) h(k) sum_i cos(w_i^T (q - k)) estimates exp(q^T k / sqrt(d)).
//          m must be even. These features can be negative (can_be_negative), and so can the normaliser.
//   dark   DARKFormer (Farzam et al. 2026, "Data-aware random feature kernel for transformers", §4.1):
//          positive random features for exp(q^T Sigma k / sqrt(d)), Sigma = M^T M with M an r x d matrix:
//          phi(x) = PRF_{R^r}(M x), i.e. frequencies w~_i = M^T g_i with g_i ~ N(0, I_r) drawn like favor's
//          (orthogonal blocks of r rows, PNC, antithetic all apply to the g_i), and
//            phi(x)_i = m^-1/2 exp(w~_i^T x - |M x|^2/2),   x = d^-1/4 input.
//          M = Lambda^-1/2 from whitening.hpp makes M x isotropic.
//
// Stabilisers (apply). Exponentials of large logits overflow, so apply() shifts them:
//   favor/dark queries: phi_i = m^-1/2 (exp(l_i - max_j l_j) + eps), l_i = w_i^T x - |x|^2/2 (per row);
//   favor/dark keys:    phi_i = m^-1/2 (exp(l_i - key_shift) + eps), key_shift one constant for all keys;
//   trig queries:       h(x) is dropped (a per-row factor);
//   trig keys:          h(x) is replaced by exp(|x|^2/2 - key_shift);
// with eps = stabilizer_epsilon (Performer's ratio * (exp(...) + eps); no eps for trig). A positive per-query
// factor cancels between the numerator and the normaliser of attention, and so does a factor common to all
// keys, so the attention weights are those of the unshifted features (exactly when eps = 0). key_shift must
// be the same for every key of the attention, on every rank: the caller takes key_max_logit() of its local
// keys, allreduces it with MPI_MAX and passes the result, which keeps every key logit <= 0. (Performer
// subtracts the max of w^T x alone; subtracting the max of the whole logit gives the same cancellation.)
//
// Every frequency comes from philox_block(seed, RngDomain::feature_draw, ...) keyed by position, never by
// rank, so a FeatureMap built from the same options on every rank is bit-identical.
#include <Eigen/Dense>

#include <cstdint>
#include <string_view>

#include "graphrf/attention/random_projection.hpp"

namespace graphrf {

struct ImportanceProposal;

enum class FeatureKind { relu, elu1, favor, trig, dark };
enum class FeatureRole { query, key };

// The fields of FeatureOptions that error messages name (the apps show their flags: --feature, --num-features, ...).
inline constexpr std::string_view kFeatureOption = "features.kind";
inline constexpr std::string_view kNumFeaturesOption = "features.m";
inline constexpr std::string_view kAntitheticOption = "features.antithetic";
inline constexpr std::string_view kReluEpsilonOption = "features.relu_epsilon";
inline constexpr std::string_view kStabilizerEpsilonOption = "features.stabilizer_epsilon";

// Largest number of random features accepted.
inline constexpr int kMaxFeatures = 1 << 20;

struct FeatureOptions {
  FeatureKind kind = FeatureKind::relu;
  // Number of features of favor/trig/dark; 0 means d (rounded up to even where m must be even: trig, and
  // antithetic). relu and elu1 always have m = d (0 or d accepted).
  int m = 0;
  FrequencyDraw draw = FrequencyDraw::orthogonal;
  // favor/dark: rows m/2 .. m-1 of the frequencies are minus rows 0 .. m/2-1 (m/2 directions drawn with
  // `draw`, and their negatives with the same norms). m must be even; the feature count stays m.
  bool antithetic = false;
  bool relu_scale = false;           // relu: divide queries by sqrt(d) first (Scenic)
  double relu_epsilon = 1e-8;        // added to relu features so the normaliser stays > 0
  double stabilizer_epsilon = 1e-6;  // favor/dark: Performer's eps, added after the shift
  std::uint64_t seed = 1;
};

// "relu", "elu1", "favor", "trig", "dark". InputError: "features.kind: unknown feature map 'x' (expected ...)".
FeatureKind parse_feature_kind(std::string_view name);
// Inverse of parse_feature_kind.
std::string_view feature_kind_name(FeatureKind kind);
// True for trig: its features can be negative, and then so can the attention normaliser
// sum_j phi(q_i)^T phi(k_j) M_ij, even with a nonnegative mask; the positive maps with f >= 0 and W >= 0 keep it
// >= f_0^2 phi(q_i)^T phi(k_i) > 0, since every walk from i deposits f_0 / n at i itself.
bool can_be_negative(FeatureKind kind);
// favor, trig, dark.
bool is_random(FeatureKind kind);

// The factor by which apply() multiplies input rows before the map: d^-1/4 for favor, trig and dark (the
// kernel of q^T k / sqrt(d)); 1/sqrt(d) for relu queries with relu_scale; 1 otherwise. Pass it to
// whitening_matrix so that Lambda is the covariance of the vectors dark's M acts on.
double feature_input_scale(const FeatureOptions& options, int d, FeatureRole role);

// The feature count m of these options for inputs of dimension d (0 means d, rounded up to even where m must be
// even), after checking the options that do not depend on the data (InputError naming the option, as FeatureMap).
int resolve_feature_count(const FeatureOptions& options, int d);

class FeatureMap {
 public:
  using Role = FeatureRole;

  // Validates the options (InputError naming the option: negative or odd m where it must be even, m != d
  // for relu/elu1, antithetic for a map that has no use for it, a negative epsilon) and draws the
  // frequencies. dark_m (r x d, r >= 1, finite) is required for dark and rejected otherwise; it is copied.
  // importance (Sigma* for d) is required for favor with FrequencyDraw::importance (an InputError naming
  // --draw without it) and rejected otherwise.
  FeatureMap(const FeatureOptions& options, int d, const Eigen::MatrixXd* dark_m = nullptr,
             const ImportanceProposal* importance = nullptr);

  int input_dim() const { return d_; }
  int output_dim() const { return m_; }
  FeatureKind kind() const { return options_.kind; }
  // The options with m resolved to output_dim().
  const FeatureOptions& options() const { return options_; }

  // Rows of X (n x d) -> rows of Phi (n x m), stabilised as described above. key_shift is used for keys of
  // favor, dark and trig only. Throws std::invalid_argument if X does not have d columns.
  Eigen::MatrixXd apply(const Eigen::MatrixXd& X, Role role, double key_shift = 0.0) const;
  // apply() on row-major rows, returning row-major rows: relu and elu1 are computed in place of the layout
  // change (they are elementwise, so the values are the same bits); the random maps go through apply().
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  RowMajor apply_rows(const RowMajor& X, Role role, double key_shift = 0.0) const;

  // The largest log-scale of this rank's key features: max over rows and features of
  // w_i^T x - |x|^2/2 (favor; |M x|^2 for dark), max over rows of |x|^2/2 (trig), with x = d^-1/4 input;
  // -infinity without rows; 0 for relu/elu1. Allreduce it with MPI_MAX and pass it to apply as key_shift.
  double key_max_logit(const Eigen::MatrixXd& K) const;

  // The unshifted estimator itself, E[phi(x)^T phi(y)] = kappa(x, y) exactly (no shift, no epsilon): for
  // tests and small inputs, it may overflow. relu/elu1: apply(X, Role::key).
  Eigen::MatrixXd apply_unshifted(const Eigen::MatrixXd& X) const;

  // The frequencies acting on x = d^-1/4 input: m x d for favor and dark (dark: rows M^T g_i; favor with
  // importance: rows Sigma*^1/2 g_i), m/2 x d for trig, 0 x d for relu/elu1.
  const Eigen::MatrixXd& frequencies() const { return w_; }
  // dark: the r x d matrix M of Sigma = M^T M (0 x 0 for the other maps).
  const Eigen::MatrixXd& dark_m() const { return dark_m_; }
  // favor with importance: log(p_I / psi)(w_i) of every frequency (empty otherwise).
  Eigen::VectorXd log_importance_weights() const { return 2.0 * half_log_weight_; }

 private:
  void check_input(Eigen::Index rows, Eigen::Index cols) const;
  // relu/elu1, the elementwise maps, in the layout of X (column- or row-major).
  template <class Matrix>
  Matrix elementwise(const Matrix& X, Role role) const;
  // favor/dark: l_ij = w_i^T x_j - |x_j|^2/2 (|M x_j|^2 for dark) (+ half the log importance weight of w_i), x = d^-1/4 X.
  Eigen::MatrixXd logits(const Eigen::MatrixXd& X) const;
  // trig: the scaled input's projections x W^T (n x m/2) and |x|^2/2 per row.
  Eigen::MatrixXd trig_features(const Eigen::MatrixXd& X, const Eigen::VectorXd& log_scale) const;

  FeatureOptions options_;
  int d_ = 0;
  int m_ = 0;
  double input_scale_ = 1.0;  // d^-1/4 for the random maps
  Eigen::MatrixXd w_;         // see frequencies()
  Eigen::MatrixXd dark_m_;    // r x d (dark only)
  Eigen::VectorXd half_log_weight_;  // favor with --draw importance: (1/2) log(p_I / psi)(w_i), else empty
};

}  // namespace graphrf
