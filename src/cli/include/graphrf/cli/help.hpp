#pragma once
// What a user reads about the options: `graphrf COMMAND --help` with every option in a named group (the
// command's own groups first, then the shared ones: graph, kernel, walks, reference, run), and the closest
// name for a mistyped option or command ("did you mean --walkers?").
#include <boost/program_options.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace graphrf {

namespace po = boost::program_options;

// The groups every command shares, in the order --help lists them after the command's own.
inline const std::vector<std::string> kSharedOptionGroups = {"graph", "kernel", "walks", "reference", "run"};

// A double option with a default that --help prints as written: 0.15 and 1e-6, not their binary expansions
// 0.14999999999999999 and 9.9999999999999995e-07 (the shortest text that reads back to the same double).
po::typed_value<double>* double_value(double default_value);
// The same, bound to `field` (filled by po::notify).
po::typed_value<double>* double_value(double* field, double default_value);
// `value` (e.g. a given_value) with that default, printed as written.
po::typed_value<double>* with_double_default(po::typed_value<double>* value, double default_value);

// Prints the groups of `desc` (whose caption names the command's own options): the command's own groups first
// in the order they were added, then the shared ones in kSharedOptionGroups order; empty groups left out.
void print_option_groups(std::ostream& os, const po::options_description& desc);

// The name of `candidates` closest to `typed` in edit distance (the first of equals), if close enough to be a
// likely typo (at most a third of the longer name's letters changed, at least 1, and not all of either name),
// else the one candidate that starts with `typed` (3 letters at least); "" otherwise.
std::string closest_name(const std::string& typed, const std::vector<std::string>& candidates);

// The long option names of desc, in order.
std::vector<std::string> option_names(const po::options_description& desc);

// "unknown option '--walker' (did you mean --walkers?)", or, with no close name, "unknown option '--frob' HINT".
std::string unknown_option_message(const std::string& typed, const po::options_description& desc,
                                   const std::string& hint);

}  // namespace graphrf
