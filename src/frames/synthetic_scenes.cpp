#include "graphrf/frames/synthetic_scenes.hpp"

#include <array>
#include <cmath>

#include "graphrf/core/counter_rng.hpp"

namespace graphrf {

namespace {

using Vec3 = std::array<double, 3>;

// Three standard normals from one keyed block.
Vec3 normals(std::uint64_t seed, std::uint64_t id, std::uint64_t a, std::uint64_t b) {
  const auto w = philox_block(seed, RngDomain::scene, id, a, b);
  const auto [z0, z1] = standard_normal_pair(w[0], w[1]);
  const auto [z2, z3] = standard_normal_pair(w[2], w[3]);
  (void)z3;
  return {z0, z1, z2};
}

// Rodrigues: v rotated by `angle` about the unit `axis`.
Vec3 rotate(const Vec3& v, const Vec3& axis, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  const double dot = axis[0] * v[0] + axis[1] * v[1] + axis[2] * v[2];
  const Vec3 cross = {axis[1] * v[2] - axis[2] * v[1], axis[2] * v[0] - axis[0] * v[2], axis[0] * v[1] - axis[1] * v[0]};
  Vec3 out;
  for (int i = 0; i < 3; ++i) out[static_cast<size_t>(i)] = v[static_cast<size_t>(i)] * c + cross[static_cast<size_t>(i)] * s + axis[static_cast<size_t>(i)] * dot * (1 - c);
  return out;
}

struct Body {
  Vec3 centre, velocity, axis;
  double spin;
};

constexpr std::uint64_t kBodyKey = 0, kPointKey = 1, kNoiseKey = 2;

Body body(const SceneOptions& o, int b) {
  const Vec3 c = normals(o.seed, static_cast<std::uint64_t>(b), kBodyKey, 0);
  const Vec3 v = normals(o.seed, static_cast<std::uint64_t>(b), kBodyKey, 1);
  Vec3 axis = normals(o.seed, static_cast<std::uint64_t>(b), kBodyKey, 2);
  const double norm = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  for (auto& x : axis) x /= norm;
  const auto w = philox_block(o.seed, RngDomain::scene, static_cast<std::uint64_t>(b), kBodyKey, 3);
  // Bodies start 3 radii apart on average and move about one radius per 20 frames.
  return {{3 * o.body_radius * c[0], 3 * o.body_radius * c[1], 3 * o.body_radius * c[2]},
          {o.body_radius * v[0], o.body_radius * v[1], o.body_radius * v[2]},
          axis,
          2.0 * (unit_uniform(w[0]) - 0.5)};
}

// A point uniform in the ball of radius r: a uniform direction and radius r u^(1/3).
Vec3 ball_point(const SceneOptions& o, std::int64_t i) {
  const Vec3 z = normals(o.seed, static_cast<std::uint64_t>(i), kPointKey, 0);
  const double norm = std::sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
  const auto w = philox_block(o.seed, RngDomain::scene, static_cast<std::uint64_t>(i), kPointKey, 1);
  const double radius = o.body_radius * std::cbrt(unit_uniform(w[0])) / (norm > 0 ? norm : 1.0);
  return {z[0] * radius, z[1] * radius, z[2] * radius};
}

}  // namespace

std::vector<double> scene_points(const SceneOptions& o, std::int64_t frame) {
  std::vector<Body> bodies;
  for (int b = 0; b < o.bodies; ++b) bodies.push_back(body(o, b));
  const double t = o.dt * static_cast<double>(frame);
  std::vector<double> out(static_cast<size_t>(o.points) * 3);
  for (std::int64_t i = 0; i < o.points; ++i) {
    const Body& b = bodies[static_cast<size_t>(i % o.bodies)];
    const Vec3 local = rotate(ball_point(o, i), b.axis, b.spin * t);
    const Vec3 noise = normals(o.seed, static_cast<std::uint64_t>(i), kNoiseKey, static_cast<std::uint64_t>(frame));
    for (size_t c = 0; c < 3; ++c) out[static_cast<size_t>(i) * 3 + c] = b.centre[c] + b.velocity[c] * t + local[c] + o.noise * noise[c];
  }
  return out;
}

}  // namespace graphrf
