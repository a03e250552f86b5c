/* grammar/pto.y -- the statement-level syntax of PTO-AS.
 *
 * This file is the FORMAL, EXECUTABLE SPECIFICATION of the statement-level
 * syntax (docs/language.md refers to it). The hand-written recursive-descent
 * parser in asm/syntax.cpp implements exactly this language: both parsers
 * read the same classified token stream (ptoas::tokenize, asm/token_stream.h)
 * and must accept exactly the same token sequences. tests/grammar
 * (test_parser_agreement) checks that on every .pto file we have and on a
 * large set of deterministic token-level mutants; `build/ptocheck FILE...`
 * runs this grammar alone.
 *
 * Scope: statements, balanced bracket groups, regions and block labels. The
 * grammar knows nothing about individual ops: an op's operands, attributes
 * and types are just a flat run of "atoms" here; the binder reads them
 * according to the op's syntax class (and the verifier's semantic rules are
 * beyond a grammar).
 *
 * Why this is LALR(1) with no conflicts (%expect 0): the token classifier
 * has already decided where statements begin. A statement starts with a
 * ValueDef (`%x =`, `%x, %y =`, `%x:2 =`), an OpName (an identifier naming a
 * known op) or a GenericOp (`"dialect.op"(`). None of those can be an atom
 * of the previous statement (a ValueDef is allowed only inside ( ) [ ] < >),
 * so one token of lookahead ends a statement. After '{', the next token
 * decides between a region ('}', a statement start or a ^block label) and an
 * attribute dictionary (anything that starts an atom).
 *
 * Tokens are produced by ptoas::lex + ptoas::classify_tokens (never by
 * Bison); grammar/bison_adapter.cpp maps ptoas::Tok to the token kinds below.
 */

%require "3.8"
%expect 0
%define api.pure full
%define api.prefix {ptoyy}
%define api.token.prefix {PTO_}
%define parse.error detailed
%define parse.lac full

%parse-param {ptoas::BisonCtx* ctx}
%lex-param {ptoas::BisonCtx* ctx}

%code requires {
namespace ptoas { struct BisonCtx; }
}

%code provides {
int ptoyylex(PTOYYSTYPE* lval, ptoas::BisonCtx* ctx);
void ptoyyerror(ptoas::BisonCtx* ctx, const char* msg);
}

/* ptoas::Tok kinds (grammar/token.h). The aliases are what error messages
 * show. Tok::Eof is the end of input ($end); Tok::Error is "invalid token". */
%token ValueDef   "value definition"
%token IvDef      "induction variable"
%token ValueUse   "value"
%token OpName     "operation name"
%token GenericOp  "generic operation"
%token Ident      "identifier"
%token AttrAlias  "attribute alias"
%token TypeAlias  "type alias"
%token Symbol     "symbol"
%token BlockLabel "block label"
%token BlockRef   "block reference"
%token Int        "integer"
%token Float      "float"
%token Hex        "hex literal"
%token String     "string"
%token Shape      "shape"
%token LParen     "'('"
%token RParen     "')'"
%token LBracket   "'['"
%token RBracket   "']'"
%token LBrace     "'{'"
%token RBrace     "'}'"
%token LAngle     "'<'"
%token RAngle     "'>'"
%token Comma      "','"
%token Colon      "':'"
%token Equal      "'='"
%token Arrow      "'->'"
%token Question   "'?'"

%start file

%%

/* A file is a sequence of statements (end of input is Bison's $end). */
file
  : stmts_opt
  ;

stmts_opt
  : %empty
  | stmts_opt stmt
  ;

/* `%a, %b:2 = op atoms` or `op atoms`. The atoms run up to the next
 * statement start, a '}' or the end of input. */
stmt
  : results Equal op atoms
  | op atoms
  ;

op
  : OpName
  | GenericOp
  ;

results
  : res_item
  | results Comma res_item
  ;

res_item
  : ValueDef
  | ValueDef Colon Int
  ;

atoms
  : %empty
  | atoms atom
  ;

atom
  : simple
  | LParen inner RParen
  | LBracket inner RBracket
  | LAngle inner RAngle
  | brace
  ;

simple
  : ValueUse | IvDef | Ident | AttrAlias | TypeAlias | Symbol | BlockRef
  | Int | Float | Hex | String | Shape
  | Colon | Comma | Equal | Arrow | Question
  ;

/* Inside ( ) [ ] < > a ValueDef may appear too (the lexer calls every `%x`
 * followed by '=' a definition, as in `iter_args(%acc = %init)`); an op
 * name may not. */
inner
  : %empty
  | inner inner_atom
  ;

inner_atom
  : atom
  | ValueDef
  ;

/* '{' opens a region (empty, or statements and ^label block headers in any
 * order: one block, or several for unstructured control flow) or an
 * attribute dictionary (one or more atoms). A block header is a BlockLabel:
 * the token classifier calls a ^label a BlockRef (an atom: a branch's
 * successor) unless ':' or '(args) :' follows it. */
brace
  : LBrace RBrace
  | LBrace region_body RBrace
  | LBrace attr_atoms RBrace
  ;

region_body
  : region_item
  | region_body region_item
  ;

region_item
  : stmt
  | block_hdr
  ;

block_hdr
  : BlockLabel Colon
  | BlockLabel LParen inner RParen Colon
  ;

attr_atoms
  : atom
  | attr_atoms atom
  ;

%%
