#pragma once
// Seeded scenes for the particle-dynamics benchmark: the workload of Reid et al. 2025a, §4.4 and App. C.3
// (rigid bodies simulated over time, N = 32768 particles per scene). Here `bodies` rigid bodies, each a set of
// particles spread uniformly in a ball of radius `body_radius`, translate and rotate at constant velocities,
// and every particle position carries independent Gaussian noise. Point i belongs to body i mod bodies. Every
// draw is keyed by (seed, body or point, frame), so a frame does not depend on which rank generates it.
#include <cstdint>
#include <vector>

namespace graphrf {

struct SceneOptions {
  std::int64_t points = 32768;
  int bodies = 4;
  double body_radius = 1.0;
  double noise = 0.01;       // standard deviation of each coordinate's noise
  double dt = 0.05;          // time between frames
  std::uint64_t seed = 1;
};

// Frame `frame`'s points, points x 3 row-major.
std::vector<double> scene_points(const SceneOptions& options, std::int64_t frame);

}  // namespace graphrf
