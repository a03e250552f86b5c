// sve_forms: every instruction form the SVE encoder uses, byte-checked
// against LLVM's own assembler (sve_forms.cpp). The kernels it compiles:
// the repository's .pto files and the generated ones (sve_forms_kernels.cpp).
#pragma once
#include <string>
#include <vector>

#include "frontend.h"

namespace sveforms {

struct GenKernel {
  std::string name;  // for messages: "pto.tadd tt f16 col_major"
  std::string text;  // .pto source
  ptoas::Arch arch;
};

std::vector<GenKernel> generated_kernels();

}  // namespace sveforms
