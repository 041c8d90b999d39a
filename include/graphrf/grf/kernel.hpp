#pragma once
// Graph kernels as power series in W, and their modulation functions f (Reid et al. 2025a, "Linear
// transformer topological masking with graph random features", Eq. 4 and Lemma 3.1).
//
// A kernel is the matrix M = sum_k alpha_k W^k, where W is either the normalised adjacency
// D^-1/2 A D^-1/2 (spectrum in [-1, 1]) or a scaled raw adjacency c*A, and L = I - W. Every named kernel
// keeps its constant prefactor, so sum_k alpha_k W^k equals the named matrix function exactly:
//
//   diffusion              exp(-beta L)        = e^-beta exp(beta W)         alpha_k = e^-beta beta^k / k!
//   exp-adjacency          exp(beta W)                                       alpha_k = beta^k / k!
//   regularized-laplacian  (I + beta L)^-power = (1+beta)^-power (I - cW)^-power,  c = beta/(1+beta)
//                                                 alpha_k = (1+beta)^-power binom(power+k-1, k) c^k
//   p-step                 (shift I - L)^power = (shift-1)^power (I + W/(shift-1))^power
//                                                 alpha_k = (shift-1)^power binom(power, k) (shift-1)^-k
//   cosine                 cos(beta L)         = cos(beta) cos(beta W) + sin(beta) sin(beta W)
//                                                 alpha_k = (-1)^floor(k/2) beta^k/k! (cos beta | sin beta)
//   alpha                  user coefficients alpha_0, alpha_1, ... (a polynomial in W)
//   f                      user coefficients f_0, f_1, ...; M = (sum_k f_k W^k)^2, alpha = f * f
//
// The modulation function f is the "square root" of alpha under discrete convolution (f * f = alpha), so
// Phi = sum_k f_k W^k satisfies Phi Phi^T = M for symmetric W; GRFs estimate the rows of Phi.
//
// The combinatorial Laplacian. With laplacian_scale = s != 1 the named kernels that are functions of L
// (diffusion, regularized-laplacian, cosine) are h(s L) of L = I - W, i.e. every formula above and below with
// beta replaced by beta * s. With W = I - (D - A)/d_max and s = d_max this is h(D - A), the kernel of the
// combinatorial Laplacian (--weights combinatorial). exp-adjacency and p-step are refused with s != 1 (the
// first is a function of W, not of L; the second's shift >= 2 presumes the normalised spectrum [0, 2]); kinds
// alpha and f are coefficients of powers of W whatever s is.
//
// Truncation. The walker deposits f_0 .. f_max_length, so pass n_terms = max_length + 1 to kernel_f.
// When f is an infinite series (every named kernel except p-step with even power) this truncation is a
// BIASED estimate of the infinite series: the GRF estimate targets Phi_K Phi_K^T with
// Phi_K = sum_{k<=K} f_k W^k, i.e. the polynomial with coefficients self_convolution(f_{0..K}, 2K+1),
// which agrees with alpha only for k <= K. The bias decays like (rho / R_f)^K, where R_f is
// f_series_radius(); it decays only polynomially when rho == R_f (e.g. cosine with beta = pi/4, or odd
// p-step with shift = 2, on a normalised W). The estimate is exact when f is finite (kind f, or p-step
// with even power, given max_length + 1 >= the number of nonzero f_k).
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace graphrf {

enum class KernelKind { diffusion, exp_adjacency, regularized_laplacian, p_step, cosine, alpha, f };

struct KernelSpec {
  KernelKind kind = KernelKind::diffusion;
  double beta = 1.0;    // diffusion, exp-adjacency, regularized-laplacian, cosine
  double power = 1.0;   // regularized-laplacian (real > 0), p-step (integer >= 1)
  double shift = 2.0;   // p-step (>= 2)
  // The kernel is h(laplacian_scale * L) with L = I - W: 1, or d_max for the combinatorial Laplacian D - A.
  double laplacian_scale = 1.0;
  std::vector<double> coefficients;  // kind alpha: alpha_0, alpha_1, ...; kind f: f_0, f_1, ...
};

// The fields errors name (the app shows the flag that fills each one, e.g. --beta).
inline constexpr std::string_view kKernelOption = "kernel.kind";
inline constexpr std::string_view kBetaOption = "kernel.beta";
inline constexpr std::string_view kPowerOption = "kernel.power";
inline constexpr std::string_view kShiftOption = "kernel.shift";

// "diffusion", "exp-adjacency", "regularized-laplacian", "p-step", "cosine", and also "alpha" and "f"
// (user coefficients). InputError: "kernel.kind: unknown kernel 'x' (expected ...)".
KernelKind parse_kernel_kind(std::string_view name);
// Inverse of parse_kernel_kind.
std::string_view kernel_kind_name(KernelKind kind);

// Checks the parameters that do not depend on W (signs, integrality, finiteness, alpha_0 > 0 so that
// f_0 = sqrt(alpha_0) is real and positive, prefactor neither overflowing nor underflowing, a laplacian_scale
// other than 1 only for diffusion, regularized-laplacian, cosine, alpha and f).
// Throws InputError naming the field.
void validate_parameters(const KernelSpec& spec);

// validate_parameters plus convergence for a W with spectral radius rho (pass 1 for the normalised
// adjacency, an upper bound on c * rho(A) for raw W = cA):
//   regularized-laplacian: the alpha (and f) series needs c * rho < 1;
//   cosine: the f series (Taylor series of sqrt(cos(beta (1 - x)))) needs rho <= R_f, the distance from 0
//           to the nearest zero of cos(beta (1 - x)); beyond it cos(beta L) can also be indefinite;
//   p-step with odd power: the f series of (1 + x/(shift-1))^(power/2) needs rho <= shift - 1.
// Kind alpha is not checked for divergence of its f series (see f_series_radius).
void validate(const KernelSpec& spec, double spectral_radius_of_W);

// alpha_0 .. alpha_{n_terms-1}. For kind alpha the given coefficients are padded with zeros or truncated;
// for kind f this is self_convolution(coefficients, n_terms). Calls validate_parameters.
std::vector<double> kernel_alpha(const KernelSpec& spec, int n_terms);

// Deconvolution, f * f = alpha (Reid et al. 2025a, Lemma 3.1). Why this recursion: the k-th convolution term
// sum_{p=0}^{k} f_p f_{k-p} contains f_k twice (p = 0 and p = k), each time times f_0, and otherwise only
// f_1 .. f_{k-1}. So k = 0 gives f_0^2 = alpha_0, and each k >= 1 is linear in the one new unknown f_k:
//   f_0 = sqrt(alpha_0),   f_k = (alpha_k - sum_{p=1}^{k-1} f_p f_{k-p}) / (2 f_0).
// Equivalently, f holds the Taylor coefficients of sqrt(sum_k alpha_k x^k) at x = 0; the positive root is
// taken so that f_0 > 0 (every walk deposits f_0 at its start). Same length as alpha.
// Throws InputError if alpha_0 <= 0 or is not finite.
std::vector<double> modulation_f(std::span<const double> alpha);

// f_0 .. f_{n_terms-1} for the spec. Closed forms (stable product recurrences) for diffusion,
// exp-adjacency, regularized-laplacian and p-step; the deconvolution recursion for cosine and alpha;
// for kind f the given coefficients padded with zeros or truncated. Calls validate_parameters.
std::vector<double> kernel_f(const KernelSpec& spec, int n_terms);

// alpha_k = sum_{p=0}^{k} f_p f_{k-p} for k < n_terms (f is zero beyond its size).
std::vector<double> self_convolution(std::span<const double> f, int n_terms);

// True if some entry is < 0. Callers warn: "some f_t < 0: the masked-attention normaliser can be negative".
bool has_negative(std::span<const double> values);

// Radius of convergence of the f series in x (the eigenvalue of W): +infinity for diffusion,
// exp-adjacency, kind f and even p-step (entire or finite); 1/c for regularized-laplacian; shift - 1 for
// odd p-step; the distance to the nearest zero of cos(beta (1 - x)) for cosine. For kind alpha: the
// smallest modulus of a root of sum_k alpha_k x^k, a LOWER bound (a root of even multiplicity is not a
// singularity of the square root).
double f_series_radius(const KernelSpec& spec);

// The kernel as a function of an eigenvalue lambda_w of W (closed form): diffusion exp(-beta (1-l)),
// exp-adjacency exp(beta l), regularized-laplacian (1 + beta (1-l))^-power, p-step (shift - 1 + l)^power,
// cosine cos(beta (1-l)); kind alpha: sum_k alpha_k l^k; kind f: (sum_k f_k l^k)^2 (the given coefficients
// are the whole, finite series). May return NaN/inf outside the domain of the closed form (e.g. a negative
// base with non-integer power). Calls validate_parameters.
double kernel_of_w_eigenvalue(const KernelSpec& spec, double lambda_w);

// The same as a function of an eigenvalue lambda_l of L = I - W, i.e. kernel_of_w_eigenvalue(spec, 1 - l),
// evaluated directly in lambda_l for the named kernels (h(lambda_L) for random wavelet features).
double kernel_of_laplacian_eigenvalue(const KernelSpec& spec, double lambda_l);

// One line, e.g. "diffusion exp(-beta L), beta=1" (with laplacian_scale != 1: "..., L = D - A, d_max=4").
std::string describe(const KernelSpec& spec);

}  // namespace graphrf
