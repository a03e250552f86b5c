// Min, median and coefficient of variation of repeated timings, shared by
// the benchmarks (a cv above 5 % marks a measurement as too noisy to trust).
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

// Above this coefficient of variation a measurement is too noisy to trust.
constexpr double kNoisyCv = 0.05;

struct Stats {
  double min = 0, median = 0, cv = 0;
  bool ok = false;
};

inline Stats stats_of(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  double mean = 0;
  for (double x : v) mean += x;
  mean /= double(n);
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  s.cv = n > 1 && mean > 0 ? std::sqrt(var / double(n - 1)) / mean : 0;
  s.ok = true;
  return s;
}
