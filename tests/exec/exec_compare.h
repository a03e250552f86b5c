// exec_diff: comparing a target's output buffers with the reference
// interpreter's, by the numerics classes of DESIGN §6.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir.h"

namespace execdiff {

// How far a kernel's float results may be from the interpreter's, decided
// by the ops it contains (DESIGN §6):
//   Exact  integer ops, data movement, compares, min/max, conversions and
//          single IEEE ops: the same bits (a NaN the CPU creates may be
//          either sign of its default NaN: AArch64's is positive, x86's
//          negative, and the interpreter computes with x86's);
//   Ulp    exp, log, rsqrt, pow and the other approximated functions:
//          within 4 ULP of the element type, or 4 epsilons of the
//          buffer's largest magnitude (what follows such an op, e.g. a
//          subtraction, keeps the absolute error, not the relative one);
//   Sum    reductions and matmul (any summation order): within 4 ULP or
//          n_eps epsilons of the largest magnitude in the buffer (the
//          n·eps·Σ|x| bound with n up to 1024 rows' worth of terms).
// Integer elements are always compared exactly; NaN must meet NaN and an
// infinity the same infinity in every class.
enum class Tol : uint8_t { Exact, Ulp, Sum };
Tol kernel_tolerance(const ptoas::Module& m, ptoas::InstId fn);
const char* tol_name(Tol t);

struct Mismatch {
  size_t index = 0;  // element index
  uint64_t ref = 0, got = 0;
};

// Compares two buffers of elements of `d`; returns the number of elements
// that differ beyond `tol`, the first few in `first`.
size_t compare_buffers(ptoas::DType d, Tol tol, const uint8_t* ref, const uint8_t* got, size_t bytes,
                       std::vector<Mismatch>& first);

// An element's bits as text ("1.5 (0x3fc00000)").
std::string element_text(ptoas::DType d, uint64_t bits);

}  // namespace execdiff
