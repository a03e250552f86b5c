// run_frontend: the front end's one entry point (see frontend.h).
#include "frontend.h"

#include "binder.h"
#include "ir.h"
#include "syntax.h"
#include "token_stream.h"
#if __has_include("verify.h")
#include "verify.h"
#define PTOAS_HAVE_VERIFIER 1
#endif

namespace ptoas {

bool bind_module(const SourceFile& src, const std::vector<Token>& toks, const SyntaxTree& tree,
                 const FrontendOptions& opts, Module& m, Diag& diag);

bool run_frontend(const SourceFile& src, const FrontendOptions& opts, Module& out, Diag& diag,
                  FrontendStats* stats) {
  std::vector<Token> toks;
  if (!tokenize(src, toks, diag)) return false;
  SyntaxTree tree;
  bool ok = parse_syntax(toks, tree, diag);
  if (stats) {
    stats->tokens = toks.size();
    stats->statements = tree.stmts.size();
  }
  if (!ok) return false;
  if (opts.syntax_only) return true;
  out.src = &src;
  bool bound = bind_module(src, toks, tree, opts, out, diag);
  if (stats) {
    stats->instructions = out.insts.size();
    stats->ir_bytes = out.bytes();
  }
  // The verifier also runs after binding errors (the statements that failed
  // are simply absent), so that one run reports as much as it can.
#ifdef PTOAS_HAVE_VERIFIER
  if (!opts.no_verify && !diag.too_many() && out.body != kNone) verify_module(out, opts, diag);
#endif
  if (!bound) return false;
  return diag.error_count() == 0;
}

}  // namespace ptoas
