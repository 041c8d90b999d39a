// Feature maps for the queries and keys of linear attention. See feature_map.hpp.
#include "graphrf/attention/feature_map.hpp"

#include "graphrf/attention/importance_sampling.hpp"
#include "graphrf/attention/row_product.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "graphrf/core/error.hpp"
#include "graphrf/core/option_error.hpp"

namespace graphrf {
namespace {

bool uses_frequencies_for_exp(FeatureKind k) { return k == FeatureKind::favor || k == FeatureKind::dark; }

}  // namespace

int resolve_feature_count(const FeatureOptions& o, int d) {
  const std::string name(feature_kind_name(o.kind));
  if (o.m < 0) option_error(kNumFeaturesOption, "must be >= 0, 0 meaning d (got " + std::to_string(o.m) + ")");
  if (o.m > kMaxFeatures)
    option_error(kNumFeaturesOption, "at most " + std::to_string(kMaxFeatures) + " (got " + std::to_string(o.m) + ")");
  if (o.draw == FrequencyDraw::importance && o.kind != FeatureKind::favor)
    option_error(kDrawOption, "importance is for " + std::string(kFeatureOption) + " favor only (got " + name + ")");
  if (!is_random(o.kind)) {
    if (o.m != 0 && o.m != d)
      option_error(kNumFeaturesOption, name + " features have exactly d = " + std::to_string(d) + " outputs (got " +
                                   std::to_string(o.m) + ")");
    if (o.antithetic) option_error(kAntitheticOption, "only for the random feature maps favor and dark (got " + name + ")");
    if (!(o.relu_epsilon >= 0) || !std::isfinite(o.relu_epsilon))
      option_error(kReluEpsilonOption, "must be finite and >= 0 (got " + format_number(o.relu_epsilon) + ")");
    return d;
  }
  if (o.kind == FeatureKind::trig && o.antithetic)
    option_error(kAntitheticOption, "only for favor and dark: for trig, -w gives the same feature products as w");
  if (uses_frequencies_for_exp(o.kind) && (!(o.stabilizer_epsilon >= 0) || !std::isfinite(o.stabilizer_epsilon)))
    option_error(kStabilizerEpsilonOption, "must be finite and >= 0 (got " + format_number(o.stabilizer_epsilon) + ")");
  const bool needs_even = o.kind == FeatureKind::trig || o.antithetic;
  if (o.m == 0) return needs_even ? d + d % 2 : d;
  if (needs_even && o.m % 2 != 0) {
    if (o.kind == FeatureKind::trig)
      option_error(kNumFeaturesOption, "trig features come in cos/sin pairs, so m must be even (got " + std::to_string(o.m) + ")");
    option_error(kNumFeaturesOption, std::string(kAntitheticOption) + " pairs every frequency w with -w, so m must be even (got " +
                                 std::to_string(o.m) + ")");
  }
  return o.m;
}

FeatureKind parse_feature_kind(std::string_view name) {
  if (name == "relu") return FeatureKind::relu;
  if (name == "elu1") return FeatureKind::elu1;
  if (name == "favor") return FeatureKind::favor;
  if (name == "trig") return FeatureKind::trig;
  if (name == "dark") return FeatureKind::dark;
  throw InputError(std::string(kFeatureOption) + ": unknown feature map '" + std::string(name) +
                   "' (expected relu, elu1, favor, trig or dark)");
}

std::string_view feature_kind_name(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::relu: return "relu";
    case FeatureKind::elu1: return "elu1";
    case FeatureKind::favor: return "favor";
    case FeatureKind::trig: return "trig";
    case FeatureKind::dark: return "dark";
  }
  return "?";
}

bool can_be_negative(FeatureKind kind) { return kind == FeatureKind::trig; }

bool is_random(FeatureKind kind) {
  return kind == FeatureKind::favor || kind == FeatureKind::trig || kind == FeatureKind::dark;
}

double feature_input_scale(const FeatureOptions& options, int d, FeatureRole role) {
  if (d < 1) throw std::invalid_argument("feature_input_scale: d must be >= 1");
  if (is_random(options.kind)) return std::pow(static_cast<double>(d), -0.25);
  if (options.kind == FeatureKind::relu && options.relu_scale && role == FeatureRole::query)
    return 1.0 / std::sqrt(static_cast<double>(d));
  return 1.0;
}

FeatureMap::FeatureMap(const FeatureOptions& options, int d, const Eigen::MatrixXd* dark_m,
                       const ImportanceProposal* importance)
    : options_(options), d_(d) {
  if (d < 1) throw std::invalid_argument("FeatureMap: d must be >= 1 (got " + std::to_string(d) + ")");
  m_ = resolve_feature_count(options, d);
  options_.m = m_;
  if (options.kind == FeatureKind::dark) {
    if (dark_m == nullptr) throw std::invalid_argument("FeatureMap: dark features need the matrix M");
    if (dark_m->rows() < 1 || dark_m->cols() != d || !dark_m->allFinite())
      throw std::invalid_argument("FeatureMap: M must be a finite r x d matrix with r >= 1 and d = " + std::to_string(d));
    dark_m_ = *dark_m;
  } else if (dark_m != nullptr) {
    throw std::invalid_argument("FeatureMap: M is only used by dark features");
  }
  const bool importance_draw = options.kind == FeatureKind::favor && options.draw == FrequencyDraw::importance;
  if (importance_draw && importance == nullptr)
    option_error(kDrawOption, "importance needs Sigma* from the queries and keys of the whole attention (not available here)");
  if (importance != nullptr && (!importance_draw || importance->sigma.rows() != d))
    throw std::invalid_argument("FeatureMap: an importance proposal (d x d) is only for favor with " + std::string(kDrawOption) + " importance");
  if (is_random(options.kind)) input_scale_ = std::pow(static_cast<double>(d), -0.25);

  switch (options.kind) {
    case FeatureKind::relu:
    case FeatureKind::elu1: w_.resize(0, d); break;
    case FeatureKind::favor:
      if (importance_draw) {
        // w_i = Sigma*^1/2 g_i with orthogonally coupled g_i (see importance_sampling.hpp), stacked as rows: G S^1/2.
        w_ = draw_frequencies(m_, d, FrequencyDraw::orthogonal, options.antithetic, options.seed) * importance->sqrt_sigma;
        half_log_weight_ = 0.5 * importance_log_weights(*importance, w_);
      } else {
        w_ = draw_frequencies(m_, d, options.draw, options.antithetic, options.seed);
      }
      break;
    case FeatureKind::trig: w_ = draw_frequencies(m_ / 2, d, options.draw, false, options.seed); break;
    case FeatureKind::dark: {
      const int r = static_cast<int>(dark_m_.rows());
      // w~_i = M^T g_i, stacked as rows: G M.
      w_ = draw_frequencies(m_, r, options.draw, options.antithetic, options.seed) * dark_m_;
      break;
    }
  }
}

void FeatureMap::check_input(Eigen::Index rows, Eigen::Index cols) const {
  if (cols != d_ && rows != 0)
    throw std::invalid_argument("FeatureMap: input has " + std::to_string(cols) + " columns, expected d = " +
                                std::to_string(d_));
}

template <class Matrix>
Matrix FeatureMap::elementwise(const Matrix& X, Role role) const {
  if (options_.kind == FeatureKind::relu) {
    const double s = feature_input_scale(options_, d_, role);
    return ((s * X).array().max(0.0) + options_.relu_epsilon).matrix();
  }
  return X.unaryExpr([](double v) { return v > 0 ? v + 1.0 : std::exp(v); });  // elu1
}

Eigen::MatrixXd FeatureMap::logits(const Eigen::MatrixXd& X) const {
  const Eigen::MatrixXd x = input_scale_ * X;
  Eigen::VectorXd half_sq;
  if (options_.kind == FeatureKind::dark)
    half_sq = 0.5 * row_by_row_product(x, dark_m_).rowwise().squaredNorm();
  else
    half_sq = 0.5 * x.rowwise().squaredNorm();
  Eigen::MatrixXd l = row_by_row_product(x, w_);
  l.colwise() -= half_sq;
  if (half_log_weight_.size() > 0) l.rowwise() += half_log_weight_.transpose();
  return l;
}

Eigen::MatrixXd FeatureMap::trig_features(const Eigen::MatrixXd& X, const Eigen::VectorXd& log_scale) const {
  const Eigen::MatrixXd p = row_by_row_product(input_scale_ * X, w_);
  const int half = m_ / 2;
  Eigen::MatrixXd out(X.rows(), m_);
  out.leftCols(half) = p.array().cos().matrix();
  out.rightCols(half) = p.array().sin().matrix();
  const Eigen::VectorXd row_factor = (log_scale.array().exp() * std::sqrt(2.0 / m_)).matrix();
  return row_factor.asDiagonal() * out;
}

Eigen::MatrixXd FeatureMap::apply(const Eigen::MatrixXd& X, Role role, double key_shift) const {
  check_input(X.rows(), X.cols());
  const Eigen::Index n = X.rows();
  if (n == 0) return Eigen::MatrixXd(0, m_);
  const bool uses_key_shift = is_random(options_.kind) && role == Role::key;
  if (uses_key_shift && !std::isfinite(key_shift))
    throw std::invalid_argument("FeatureMap::apply: key_shift must be finite (got " + format_number(key_shift) + ")");
  switch (options_.kind) {
    case FeatureKind::relu:
    case FeatureKind::elu1: return elementwise(X, role);
    case FeatureKind::favor:
    case FeatureKind::dark: {
      Eigen::MatrixXd l = logits(X);
      if (role == Role::query)
        l.colwise() -= l.rowwise().maxCoeff();
      else
        l.array() -= key_shift;
      return ((l.array().exp() + options_.stabilizer_epsilon) / std::sqrt(static_cast<double>(m_))).matrix();
    }
    case FeatureKind::trig: {
      if (role == Role::query) return trig_features(X, Eigen::VectorXd::Zero(n));
      const Eigen::VectorXd half_sq = 0.5 * (input_scale_ * X).rowwise().squaredNorm();
      return trig_features(X, (half_sq.array() - key_shift).matrix());
    }
  }
  throw std::logic_error("FeatureMap::apply: unknown kind");
}

FeatureMap::RowMajor FeatureMap::apply_rows(const RowMajor& X, Role role, double key_shift) const {
  check_input(X.rows(), X.cols());
  if (!is_random(options_.kind)) return elementwise(X, role);
  return apply(Eigen::MatrixXd(X), role, key_shift);
}

double FeatureMap::key_max_logit(const Eigen::MatrixXd& K) const {
  check_input(K.rows(), K.cols());
  if (!is_random(options_.kind)) return 0.0;
  if (K.rows() == 0) return -std::numeric_limits<double>::infinity();
  if (options_.kind == FeatureKind::trig) return 0.5 * (input_scale_ * K).rowwise().squaredNorm().maxCoeff();
  return logits(K).maxCoeff();
}

Eigen::MatrixXd FeatureMap::apply_unshifted(const Eigen::MatrixXd& X) const {
  check_input(X.rows(), X.cols());
  if (X.rows() == 0) return Eigen::MatrixXd(0, m_);
  switch (options_.kind) {
    case FeatureKind::relu:
    case FeatureKind::elu1: return apply(X, Role::key);
    case FeatureKind::favor:
    case FeatureKind::dark: return (logits(X).array().exp() / std::sqrt(static_cast<double>(m_))).matrix();
    case FeatureKind::trig: return trig_features(X, 0.5 * (input_scale_ * X).rowwise().squaredNorm());
  }
  throw std::logic_error("FeatureMap::apply_unshifted: unknown kind");
}

}  // namespace graphrf
