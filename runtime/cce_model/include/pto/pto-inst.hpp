// The PTO-ISA C++ surface the CCE backend emits (docs/cce_backend.md §1),
// as the project's CPU model: what g++ compiles the emitted kernels against
// (runtime/cce_model, docs/cce_backend.md §5). Needs libptocce_model at run
// time.
#pragma once
#include <cstdint>

#include "pto/model/sync.hpp"
#include "pto/model/scalar_types.hpp"
#include "pto/model/tensor.hpp"
#include "pto/model/tile.hpp"
#include "pto/model/attrs.hpp"
#include "pto/model/ops.hpp"

using pto::GlobalTensor;
