// The library names the fields of its options structs in its errors ("kernel.beta: diffusion needs beta > 0");
// the user reads the command-line flags that fill them ("--beta: ..."). One table, field -> flag.
#include <algorithm>
#include <string_view>
#include <utility>

#include "graphrf/cli/option_fields.hpp"

namespace graphrf {

namespace {

// Every field a library error may name, with the flag the app binds to it.
const std::pair<const char*, const char*> kFieldFlags[] = {
    {"walk.walkers", "--walkers"},
    {"walk.p_halt", "--p-halt"},
    {"walk.max_length", "--max-length"},
    {"walk.fixed_length", "--fixed-length"},
    {"walk.coupling", "--coupling"},
    {"walk.sigma", "--sigma"},
    {"walk.step", "--step"},
    {"walk.weights", "--weights"},
    {"walk.scale", "--scale"},
    {"kernel.kind", "--kernel"},
    {"kernel.beta", "--beta"},
    {"kernel.power", "--power"},
    {"kernel.shift", "--shift"},
    {"kernel.alpha", "--alpha"},
    {"kernel.f", "--f"},
    {"reference.dense_max", "--dense-reference-max"},
    {"reference.samples", "--reference-samples"},
    {"gp.learn", "--learn"},
    {"gp.sigma_f", "--sigma-f"},
    {"gp.sigma_n", "--sigma-n"},
    {"wavelet.rank", "--embedding-dim"},
    {"wavelet.oversample", "--oversample"},
    {"wavelet.degree_chi", "--degree-chi"},
    {"wavelet.subspace_iterations", "--subspace-iterations"},
    {"wavelet.degree_h", "--degree-h"},
    {"wavelet.eigencount_order", "--eigencount-order"},
    {"wavelet.dichotomy_eps", "--dichotomy-eps"},
    {"wavelet.count_tolerance", "--count-tolerance"},
    {"wavelet.n_probe", "--probes"},
    {"wavelet.lambda_max", "--lambda-max"},
    {"wavelet.kernel", "--kernel"},
    {"features.kind", "--feature"},
    {"features.m", "--num-features"},
    {"features.draw", "--draw"},
    {"features.antithetic", "--antithetic"},
    {"features.relu_epsilon", "--relu-epsilon"},
    {"features.stabilizer_epsilon", "--stabilizer-epsilon"},
    {"attention.heads", "--heads"},
    {"attention.synthetic", "--synthetic"},
    {"attention.head_betas", "--head-betas"},
    {"attention.dark_ridge", "--dark-ridge"},
    {"attention.normalizer", "--on-bad-normalizer"},
    {"frames.output_type", "--frames-dtype"},
    {"points.format", "--points-format"},
    {"point_graph.knn", "--knn"},
    {"point_graph.radius", "--radius"},
    {"point_graph.mode", "--knn-mode"},
    {"point_graph.weight", "--edge-weight"},
    {"point_graph.sigma", "--edge-sigma"},
    {"graph.format", "--format"},
    {"graph.duplicates", "--duplicates"},
    {"graph.ids", "--ids"},
    {"graph.weight_column", "--weight-column"},
};

bool name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'; }
// A field name starts a word: not inside a longer name, nor the end of a path or of a hyphenated word
// (".../graph.ids", "my-graph.ids" are file names).
bool word_start(const std::string& message, std::size_t i) {
  return i == 0 || (!name_char(message[i - 1]) && message[i - 1] != '/' && message[i - 1] != '-');
}

}  // namespace

std::string with_option_flags(const std::string& message) {
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    const bool starts = word_start(message, i);
    const char* flag = nullptr;
    std::size_t length = 0;
    for (const auto& [field, option] : kFieldFlags) {
      const std::string_view f(field);
      const std::size_t end = i + f.size();
      if (starts && message.compare(i, f.size(), f) == 0 && (end == message.size() || !name_char(message[end])) &&
          f.size() > length)
        flag = option, length = f.size();
    }
    if (flag) {
      out += flag;
      i += length;
    } else {
      out += message[i++];
    }
  }
  return out;
}

}  // namespace graphrf
