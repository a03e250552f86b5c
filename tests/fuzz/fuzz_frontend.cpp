// libFuzzer target for the front end (lexer + parser + binder + verifier)
// and the optimizer's passes.
//
// Every input must be handled without a crash, a sanitizer report, a hang or
// a memory blow-up. When an input is accepted, its canonical print must itself
// be accepted and print identically: printing is a fixed point (DESIGN §3).
//
// The input bytes are the .pto text as is (no option bytes; default flags), so
// a crash file replays directly with `ptoas --emit=ir FILE`.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "frontend.h"
#include "ir.h"
#include "opt.h"

namespace {

// Inputs beyond this size only slow the fuzzer down; size limits are tested
// separately.
constexpr size_t kMaxInput = 256 * 1024;

[[noreturn]] void fail(const char* what, const std::string& first, const std::string& detail) {
  std::fprintf(stderr, "fuzz_frontend: %s\n--- first print ---\n%s\n--- detail ---\n%s\n", what,
               first.c_str(), detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  using namespace ptoas;
  SourceFile src("fuzz.pto", std::string(reinterpret_cast<const char*>(data), size));
  Diag diag(&src);
  diag.set_echo(false);
  FrontendOptions opts;
  std::string first;
  {
    Module m;
    if (!run_frontend(src, opts, m, diag)) return 0;
    first = print_module(m);
  }
  SourceFile again("fuzz-printed.pto", first);
  Diag diag2(&again);
  diag2.set_echo(false);
  Module m2;
  if (!run_frontend(again, opts, m2, diag2))
    fail("the printed IR of an accepted input is rejected", first, diag2.text());
  std::string second = print_module(m2);
  if (second != first) fail("printing is not a fixed point", first, second);
  // The optimizer (-O2) on every accepted input: no crash, and the IR it
  // prints is a program the front end accepts again.
  opt::Options oo;
  if (!opt::optimize(m2, oo, opt::TargetDesc{}, diag2))
    fail("the optimizer failed on a verified module", first, diag2.text());
  std::string optimized = print_module(m2);
  SourceFile third("fuzz-optimized.pto", optimized);
  Diag diag3(&third);
  diag3.set_echo(false);
  Module m3;
  if (!run_frontend(third, opts, m3, diag3)) fail("the optimized IR is rejected", optimized, diag3.text());
  return 0;
}
