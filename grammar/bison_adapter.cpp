// The tiny adapter between ptoas::Tok streams and the Bison parser generated
// from grammar/pto.y: yylex reads a pre-tokenized vector, yyerror records
// where and why the grammar rejected it.
#include "bison_adapter.h"

#include <algorithm>

#include "pto_parser.h"

namespace ptoas {

struct BisonCtx {
  const std::vector<Token>* toks = nullptr;
  size_t pos = 0;       // next token to hand out
  size_t last = 0;      // index of the token handed out last
  std::string message;  // set by yyerror
};

namespace {

// ptoas::Tok -> Bison token kind (PTO_* from pto_parser.h).
int bison_kind(Tok t) {
  switch (t) {
    case Tok::Eof: return PTO_YYEOF;
    case Tok::Error: return PTO_PTOYYUNDEF;
    case Tok::ValueDef: return PTO_ValueDef;
    case Tok::IvDef: return PTO_IvDef;
    case Tok::ValueUse: return PTO_ValueUse;
    case Tok::OpName: return PTO_OpName;
    case Tok::GenericOp: return PTO_GenericOp;
    case Tok::Ident: return PTO_Ident;
    case Tok::AttrAlias: return PTO_AttrAlias;
    case Tok::TypeAlias: return PTO_TypeAlias;
    case Tok::Symbol: return PTO_Symbol;
    case Tok::BlockLabel: return PTO_BlockLabel;
    case Tok::BlockRef: return PTO_BlockRef;
    case Tok::Int: return PTO_Int;
    case Tok::Float: return PTO_Float;
    case Tok::Hex: return PTO_Hex;
    case Tok::String: return PTO_String;
    case Tok::Shape: return PTO_Shape;
    case Tok::LParen: return PTO_LParen;
    case Tok::RParen: return PTO_RParen;
    case Tok::LBracket: return PTO_LBracket;
    case Tok::RBracket: return PTO_RBracket;
    case Tok::LBrace: return PTO_LBrace;
    case Tok::RBrace: return PTO_RBrace;
    case Tok::LAngle: return PTO_LAngle;
    case Tok::RAngle: return PTO_RAngle;
    case Tok::Comma: return PTO_Comma;
    case Tok::Colon: return PTO_Colon;
    case Tok::Equal: return PTO_Equal;
    case Tok::Arrow: return PTO_Arrow;
    case Tok::Question: return PTO_Question;
    case Tok::Count: break;
  }
  return PTO_PTOYYUNDEF;
}

}  // namespace

BisonResult bison_parse(const std::vector<Token>& toks) {
  BisonCtx ctx;
  ctx.toks = &toks;
  BisonResult r;
  int rc = ptoyyparse(&ctx);
  r.accepted = rc == 0;
  if (!r.accepted) {
    r.error_token = toks.empty() ? 0 : uint32_t(std::min(ctx.last, toks.size() - 1));
    r.message = ctx.message.empty() ? std::string("syntax error") : ctx.message;
  }
  return r;
}

}  // namespace ptoas

int ptoyylex(PTOYYSTYPE* /*lval*/, ptoas::BisonCtx* ctx) {
  const std::vector<ptoas::Token>& toks = *ctx->toks;
  if (ctx->pos >= toks.size()) {
    ctx->last = toks.empty() ? 0 : toks.size() - 1;
    return PTO_YYEOF;
  }
  ctx->last = ctx->pos;
  ptoas::Tok k = toks[ctx->pos].kind;
  // The first Eof ends the input; stay on it if Bison asks again.
  if (k != ptoas::Tok::Eof) ++ctx->pos;
  return ptoas::bison_kind(k);
}

void ptoyyerror(ptoas::BisonCtx* ctx, const char* msg) {
  if (ctx->message.empty()) ctx->message = msg;
}
