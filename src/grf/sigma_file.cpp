#include "graphrf/grf/sigma_file.hpp"

#include <fstream>

#include "graphrf/core/error.hpp"
#include "graphrf/io/output_file.hpp"

namespace graphrf {

void write_sigma_file(const Communicator& comm, const std::string& path, const CoupleResult& result,
                      const std::string& learned_by) {
  const SigmaLearningResult& r = result.learned;
  OutputTemporary temporary(comm, path);  // this run's own file, removed unless published
  collective_try(comm, [&] {
    if (!comm.is_root()) return;
    const std::string& partial = temporary.path();
    {
      std::ofstream f(partial);
      f << "# sigma-coupling learned by: " << learned_by << "\n"
        << "# cost sum_q C(q, sigma(q)): this sigma " << r.cost_sigma << ", identity " << r.cost_identity
        << ", mean over uniform permutations " << r.cost_random_mean << "\n"
        << permutation_text(r.sigma) << "\n";
      if (!f.flush()) throw Error("--out: writing '" + partial + "' failed");
    }
    if (const std::string error = temporary.publish(); !error.empty())
      throw InputError("--out " + path + ": cannot create file: " + error);
  });
}

}  // namespace graphrf
