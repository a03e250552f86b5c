// Internal to opt/: what every pass gets, and each pass's entry point.
#pragma once
#include "opt.h"

namespace ptoas::opt {

struct PassContext {
  const Options& opts;
  const TargetDesc& target;
  Diag& diag;
};

}  // namespace ptoas::opt
