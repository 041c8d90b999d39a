#include "masked_attention_kernel.hpp"

#include <algorithm>

#include "graphrf/core/error.hpp"

namespace graphrf::python {

MaskPattern::MaskPattern(std::int64_t n, std::vector<std::int64_t> indptr, std::vector<std::int64_t> indices,
                         std::vector<std::int32_t> length, std::vector<double> data)
    : n_(n), length_(std::move(length)), value_(std::move(data)) {
  const auto entries = indices.size();
  if (n < 0 || indptr.size() != static_cast<std::size_t>(n) + 1 || indptr.front() != 0 ||
      indptr.back() != static_cast<std::int64_t>(entries) || length_.size() != entries || value_.size() != entries)
    throw InputError("walks: indptr, indices, length and data do not describe one N x N length-resolved matrix");
  indptr_.reserve(indptr.size());
  indptr_.push_back(0);
  slot_.reserve(entries);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto begin = static_cast<std::size_t>(indptr[static_cast<std::size_t>(i)]);
    const auto end = static_cast<std::size_t>(indptr[static_cast<std::size_t>(i) + 1]);
    if (end < begin || end > entries) throw InputError("walks: indptr is not ascending");
    for (std::size_t e = begin; e < end; ++e) {
      if (indices[e] < 0 || indices[e] >= n || length_[e] < 0)
        throw InputError("walks: an entry has a column outside 0..N-1 or a negative length");
      const bool new_column = e == begin || indices[e] != indices[e - 1];
      if (!new_column && length_[e] <= length_[e - 1])
        throw InputError("walks: the entries of a row are not sorted by column, then length");
      if (e > begin && indices[e] < indices[e - 1]) throw InputError("walks: the entries of a row are not sorted by column");
      if (new_column) col_.push_back(indices[e]);
      slot_.push_back(static_cast<std::int64_t>(col_.size()) - 1);
      n_lengths_ = std::max(n_lengths_, length_[e] + 1);
    }
    indptr_.push_back(static_cast<std::int64_t>(col_.size()));
  }
}

template <class T>
std::vector<T> MaskPattern::values(std::span<const T> f) const {
  // Summed in ascending length per entry, as combine_lengths sums the rows of /grf.
  std::vector<T> phi(col_.size(), T(0));
  for (std::size_t e = 0; e < slot_.size(); ++e) {
    const auto t = static_cast<std::size_t>(length_[e]);
    if (t < f.size()) phi[static_cast<std::size_t>(slot_[e])] += f[t] * static_cast<T>(value_[e]);
  }
  return phi;
}

template <class T>
std::vector<T> MaskPattern::f_gradient(std::span<const T> dphi, std::size_t f_size) const {
  std::vector<T> df(f_size, T(0));
  for (std::size_t e = 0; e < slot_.size(); ++e) {
    const auto t = static_cast<std::size_t>(length_[e]);
    if (t < f_size) df[t] += static_cast<T>(value_[e]) * dphi[static_cast<std::size_t>(slot_[e])];
  }
  return df;
}

namespace {

// y += a * x over n values.
template <class T>
inline void axpy(std::int64_t n, T a, const T* x, T* y) {
  for (std::int64_t k = 0; k < n; ++k) y[k] += a * x[k];
}

template <class T>
inline T dot(std::int64_t n, const T* x, const T* y) {
  T s = 0;
  for (std::int64_t k = 0; k < n; ++k) s += x[k] * y[k];
  return s;
}

// For every nonzero (row i, column l, value phi) of a mask side: visit(i, l, phi, entry).
template <class T, class Visit>
void for_each_entry(MaskValues<T> side, Visit visit) {
  const auto& indptr = side.pattern.indptr();
  const auto& col = side.pattern.indices();
  for (std::int64_t i = 0; i < side.pattern.n(); ++i)
    for (std::int64_t e = indptr[static_cast<std::size_t>(i)]; e < indptr[static_cast<std::size_t>(i) + 1]; ++e)
      visit(i, col[static_cast<std::size_t>(e)], side.values[static_cast<std::size_t>(e)], e);
}

}  // namespace

template <class T>
AttentionState<T> masked_attention_forward(MaskValues<T> q, MaskValues<T> k, const T* A, const T* B, const T* V,
                                           std::int64_t m, std::int64_t d, T* out) {
  const std::int64_t n = q.pattern.n(), md = m * d;
  AttentionState<T> s;
  s.S.assign(static_cast<std::size_t>(n * md), T(0));
  s.z.assign(static_cast<std::size_t>(n * m), T(0));
  s.den.assign(static_cast<std::size_t>(n), T(0));
  // Key pass: S_l += Phi_k[j,l] B_j V_j^T, z_l += Phi_k[j,l] B_j.
  std::vector<T> bv(static_cast<std::size_t>(md));
  std::int64_t outer_row = -1;
  for_each_entry(k, [&](std::int64_t j, std::int64_t l, T phi, std::int64_t) {
    const T* b = B + j * m;
    if (j != outer_row) {
      for (std::int64_t a = 0; a < m; ++a)
        for (std::int64_t c = 0; c < d; ++c) bv[static_cast<std::size_t>(a * d + c)] = b[a] * V[j * d + c];
      outer_row = j;
    }
    axpy(md, phi, bv.data(), s.S.data() + l * md);
    axpy(m, phi, b, s.z.data() + l * m);
  });
  // Query pass: R_i = sum_l Phi_q[i,l] S_l, r_i likewise; out_i = A_i^T R_i / A_i . r_i.
  std::vector<T> R(static_cast<std::size_t>(md)), r(static_cast<std::size_t>(m));
  const auto& indptr = q.pattern.indptr();
  const auto& col = q.pattern.indices();
  for (std::int64_t i = 0; i < n; ++i) {
    std::fill(R.begin(), R.end(), T(0));
    std::fill(r.begin(), r.end(), T(0));
    for (std::int64_t e = indptr[static_cast<std::size_t>(i)]; e < indptr[static_cast<std::size_t>(i) + 1]; ++e) {
      const std::int64_t l = col[static_cast<std::size_t>(e)];
      const T phi = q.values[static_cast<std::size_t>(e)];
      axpy(md, phi, s.S.data() + l * md, R.data());
      axpy(m, phi, s.z.data() + l * m, r.data());
    }
    const T* a = A + i * m;
    const T den = dot(m, a, r.data());
    s.den[static_cast<std::size_t>(i)] = den;
    for (std::int64_t c = 0; c < d; ++c) {
      T num = 0;
      for (std::int64_t x = 0; x < m; ++x) num += a[x] * R[static_cast<std::size_t>(x * d + c)];
      out[i * d + c] = num / den;
    }
  }
  return s;
}

template <class T>
void masked_attention_backward(MaskValues<T> q, MaskValues<T> k, const T* A, const T* B, const T* V, std::int64_t m,
                               std::int64_t d, const T* out, const AttentionState<T>& s, const T* G, T* dA, T* dB,
                               T* dV, T* dphi_q, T* dphi_k) {
  const std::int64_t n = q.pattern.n(), md = m * d;
  std::fill(dA, dA + n * m, T(0));
  std::fill(dB, dB + n * m, T(0));
  std::fill(dV, dV + n * d, T(0));
  std::vector<T> P(static_cast<std::size_t>(n * md), T(0)), p(static_cast<std::size_t>(n * m), T(0));
  std::vector<T> g(static_cast<std::size_t>(d)), ag(static_cast<std::size_t>(md)), u(static_cast<std::size_t>(m));
  T h = 0;
  std::int64_t row = -1;
  // Query side: dA, dPhi_q, and the column sums P, p of the key side.
  for_each_entry(q, [&](std::int64_t i, std::int64_t l, T phi, std::int64_t e) {
    const T* a = A + i * m;
    if (i != row) {
      const T den = s.den[static_cast<std::size_t>(i)];
      for (std::int64_t c = 0; c < d; ++c) g[static_cast<std::size_t>(c)] = G[i * d + c] / den;
      h = -dot(d, G + i * d, out + i * d) / den;
      for (std::int64_t x = 0; x < m; ++x)
        for (std::int64_t c = 0; c < d; ++c) ag[static_cast<std::size_t>(x * d + c)] = a[x] * g[static_cast<std::size_t>(c)];
      row = i;
    }
    const T* S = s.S.data() + l * md;
    const T* z = s.z.data() + l * m;
    for (std::int64_t x = 0; x < m; ++x) u[static_cast<std::size_t>(x)] = dot(d, S + x * d, g.data()) + h * z[x];
    axpy(m, phi, u.data(), dA + i * m);
    dphi_q[e] = dot(m, a, u.data());
    axpy(md, phi, ag.data(), P.data() + l * md);
    axpy(m, phi * h, a, p.data() + l * m);
  });
  // Key side: dB, dV, dPhi_k.
  std::vector<T> w(static_cast<std::size_t>(m));
  for_each_entry(k, [&](std::int64_t j, std::int64_t l, T phi, std::int64_t e) {
    const T* b = B + j * m;
    const T* v = V + j * d;
    const T* Pl = P.data() + l * md;
    const T* pl = p.data() + l * m;
    for (std::int64_t x = 0; x < m; ++x) w[static_cast<std::size_t>(x)] = dot(d, Pl + x * d, v) + pl[x];
    axpy(m, phi, w.data(), dB + j * m);
    dphi_k[e] = dot(m, b, w.data());
    T* dv = dV + j * d;
    for (std::int64_t x = 0; x < m; ++x) axpy(d, phi * b[x], Pl + x * d, dv);
  });
}

#define GRAPHRF_MASKED_ATTENTION(T)                                                                                    \
  template std::vector<T> MaskPattern::values(std::span<const T>) const;                                               \
  template std::vector<T> MaskPattern::f_gradient(std::span<const T>, std::size_t) const;                              \
  template AttentionState<T> masked_attention_forward(MaskValues<T>, MaskValues<T>, const T*, const T*, const T*,      \
                                                      std::int64_t, std::int64_t, T*);                                 \
  template void masked_attention_backward(MaskValues<T>, MaskValues<T>, const T*, const T*, const T*, std::int64_t,    \
                                          std::int64_t, const T*, const AttentionState<T>&, const T*, T*, T*, T*, T*, \
                                          T*);
GRAPHRF_MASKED_ATTENTION(float)
GRAPHRF_MASKED_ATTENTION(double)

}  // namespace graphrf::python
