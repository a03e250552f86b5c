// A kernel's text through the front end, for the optimizer's random-program
// tests (random_programs.cpp, random_gemm.cpp): the module with its source
// kept alive, and the diagnostics.
#pragma once
#include <memory>
#include <string>

#include "diag.h"
#include "frontend.h"
#include "ir.h"

namespace ptoas::opt_test {

struct Parsed {
  std::unique_ptr<SourceFile> src;
  std::unique_ptr<Module> m;
  std::string diag;
};

// Parses and verifies `text` as file `name` (at `level`); false with the diagnostics in
// out.diag.
inline bool parse(const std::string& name, const std::string& text, Parsed& out, Level level = Level::Level2) {
  out.src = std::make_unique<SourceFile>(name, text);
  out.m = std::make_unique<Module>();
  Diag d(out.src.get());
  FrontendOptions fo;
  fo.level = level;
  bool ok = run_frontend(*out.src, fo, *out.m, d);
  out.diag = d.text();
  return ok;
}

}  // namespace ptoas::opt_test
