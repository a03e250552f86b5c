// The front end as one call: text -> tokens -> syntax -> IR -> verified IR.
// Used by the ptoas driver, the fuzzer, the benchmarks and the tests.
#pragma once
#include <string>

#include "diag.h"

namespace ptoas {

struct Module;

enum class Arch : uint8_t { A3, A5 };
enum class Level : uint8_t { Level1, Level2, Level3 };

struct FrontendOptions {
  // --pto-arch given on the command line wins over the module attribute.
  bool arch_from_cli = false;
  Arch arch = Arch::A3;
  Level level = Level::Level2;
  bool enable_insert_sync = false;
  // --pto-backend=emitc|vpto given: it decides every module's backend (a
  // child module's pto.backend then does not; asm/verify_backend.cpp).
  bool backend_from_cli = false;
  bool backend_vpto = false;  // the --pto-backend value (default emitc)
  // Stop after the statement-level parse (--syntax-only).
  bool syntax_only = false;
  // Skip the verifier (binding errors are still reported).
  bool no_verify = false;
  // With the VPTO backend in effect (the command line's, else the module's
  // pto.backend) the verifier also runs the checks of that backend's passes
  // (asm/verify_vpto_backend.cpp).
  // The VPTO backend's output the command line asked for, even when a later
  // --emit=ir prints the IR instead: "vpto" (--emit-vpto), "vpto-llvm-ir"
  // (--emit-vpto-llvm-ir) or empty. It requires the VPTO backend.
  std::string vpto_emit;
};

struct FrontendStats {
  size_t tokens = 0;
  size_t statements = 0;
  size_t instructions = 0;  // IR instructions after binding
  size_t ir_bytes = 0;      // bytes the IR and its tables allocate
};

// Runs the front end on `src`. Errors go to `diag`; returns false if any.
// On success (and unless syntax_only) `out` holds the verified module.
bool run_frontend(const SourceFile& src, const FrontendOptions& opts, Module& out, Diag& diag,
                  FrontendStats* stats = nullptr);

// Canonical text of a module (DPS form, compact tile_buf spelling).
std::string print_module(const Module& m);

}  // namespace ptoas
