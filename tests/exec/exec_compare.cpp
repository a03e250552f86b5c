// exec_diff comparison (exec_compare.h).
#include "exec_compare.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "elem.h"
#include "exec_inputs.h"
#include "ops.h"

using namespace ptoas;

namespace execdiff {

namespace {

bool approximated(Op op) {
  switch (op) {
    case Op::TExp: case Op::TLog: case Op::TRsqrt: case Op::TRecip: case Op::TPow: case Op::TPowS:
    case Op::TRowExpandExpDif: case Op::TColExpandExpDif:
      return true;
    default:
      return false;
  }
}

uint64_t load_bits(const uint8_t* b, unsigned es, size_t i) {
  uint64_t v = 0;
  std::memcpy(&v, b + i * es, es);
  return v;
}

double as_double(DType d, uint64_t bits) {
  uint8_t buf[8];
  std::memcpy(buf, &bits, 8);
  return rt::load_f(buf, d);
}

// The distance between two finite values of d in units of the spacing of
// the element type at `ref` (ULP).
double ulp_of(DType d, double ref) {
  int mant = d == DType::F64 ? 52 : d == DType::F32 ? 23 : d == DType::F16 ? 10 : 7;
  int emin = d == DType::F64 ? -1022 : d == DType::F32 ? -126 : d == DType::F16 ? -14 : -126;
  int e = ref == 0 ? emin : std::max(std::ilogb(ref), emin);
  return std::ldexp(1.0, e - mant);
}

bool default_nan_pair(DType d, uint64_t a, uint64_t b) {
  uint64_t pos = d == DType::F32 ? 0x7fc00000u : d == DType::F16 ? 0x7e00u : d == DType::BF16 ? 0x7fc0u : 0x7ff8000000000000ull;
  uint64_t sign = d == DType::F32 ? 0x80000000u : d == DType::F16 ? 0x8000u : d == DType::BF16 ? 0x8000u : 0x8000000000000000ull;
  return (a == pos && b == (pos | sign)) || (b == pos && a == (pos | sign));
}

}  // namespace

Tol kernel_tolerance(const Module& m, InstId fn) {
  Tol t = Tol::Exact;
  each_inst(m, fn, [&](InstId, const Inst& in) {
    Sem s = op_info(in.op).sem;
    if (s == Sem::Reduce || s == Sem::Matmul) t = Tol::Sum;
    else if (approximated(in.op) && t == Tol::Exact) t = Tol::Ulp;
  });
  return t;
}

const char* tol_name(Tol t) { return t == Tol::Exact ? "exact" : t == Tol::Ulp ? "ulp" : "sum"; }

size_t compare_buffers(DType d, Tol tol, const uint8_t* ref, const uint8_t* got, size_t bytes,
                       std::vector<Mismatch>& first) {
  if (std::memcmp(ref, got, bytes) == 0) return 0;
  unsigned es = std::max(1u, dtype_bytes(d));
  size_t n = bytes / es, bad = 0;
  auto miss = [&](size_t i, uint64_t a, uint64_t b) {
    if (first.size() < 4) first.push_back({i, a, b});
    ++bad;
  };
  bool fl = dtype_is_float(d);
  double maxabs = 0;
  if (fl && tol != Tol::Exact)
    for (size_t i = 0; i < n; ++i) {
      double x = as_double(d, load_bits(ref, es, i));
      if (std::isfinite(x)) maxabs = std::max(maxabs, std::fabs(x));
    }
  double eps = d == DType::F64 ? 0x1p-52 : d == DType::F32 ? 0x1p-23 : d == DType::F16 ? 0x1p-10 : 0x1p-7;
  double rel = tol == Tol::Sum ? 1024 * eps : 4 * eps;
  if (d == DType::F64) rel = tol == Tol::Sum ? 0x1p-40 : 0x1p-48;
  for (size_t i = 0; i < n; ++i) {
    uint64_t a = load_bits(ref, es, i), b = load_bits(got, es, i);
    if (a == b) continue;
    if (!fl) {
      miss(i, a, b);
      continue;
    }
    double x = as_double(d, a), y = as_double(d, b);
    if (std::isnan(x) || std::isnan(y)) {
      if (!(std::isnan(x) && std::isnan(y) && (tol != Tol::Exact || default_nan_pair(d, a, b)))) miss(i, a, b);
      continue;
    }
    if (tol == Tol::Exact || std::isinf(x) || std::isinf(y)) {
      miss(i, a, b);
      continue;
    }
    double diff = std::fabs(x - y);
    if (diff <= 4 * ulp_of(d, x) || diff <= rel * maxabs) continue;
    miss(i, a, b);
  }
  return bad;
}

std::string element_text(DType d, uint64_t bits) {
  char buf[96];
  if (dtype_is_float(d)) {
    std::snprintf(buf, sizeof buf, "%.9g (0x%llx)", as_double(d, bits), (unsigned long long)bits);
  } else {
    std::snprintf(buf, sizeof buf, "%lld (0x%llx)", (long long)bits, (unsigned long long)bits);
  }
  return buf;
}

}  // namespace execdiff
