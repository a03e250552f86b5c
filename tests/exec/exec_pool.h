// exec_diff: the files of a run shared among forked workers.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace execdiff {

// Runs work(i) for every i in [0, n) and returns the results in item
// order, whatever order they ran in. jobs <= 1 runs them here, in order;
// otherwise `jobs` forked workers take the next item in turn (one shared
// counter), so a slow item holds up one worker, not a share of the list.
// False with `err` when a worker dies before reporting all its items.
bool run_forked(size_t n, unsigned jobs, const std::function<std::string(size_t)>& work,
                std::vector<std::string>& out, std::string& err);

}  // namespace execdiff
