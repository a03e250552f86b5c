// The sve target: AArch64 with SVE, vector-length agnostic
// (docs/sve_backend.md). Its shape (sve/shape.h) is what ptoas sees before
// it loads this backend from libptoas_llvm.so.
#include "codegen.h"
#include "sve.h"
#include "sve/shape.h"

namespace ptoas::cg {

namespace {

constexpr Target kSve = with_backend(sve::kShape, {
                                                      .compile = sve::compile_function,
                                                      .build_output = sve::build_output,
                                                      .decode = sve::decode,
                                                      .packed_thunk = sve::packed_thunk,
                                                  });
static_assert(hooks_of(kSve) == sve::kHooks, "sve/shape.h's kHooks must name exactly the functions kSve has");

}  // namespace

const Target& sve::target() { return kSve; }

std::vector<const Target*> sve_targets() { return {&kSve}; }

}  // namespace ptoas::cg
