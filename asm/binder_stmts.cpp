// Binder: functions, structured control flow, scalar arithmetic, views and
// tile allocation. Each reader follows the op's textual form in MLIR's
// custom assembly (docs/language.md §3) and fills a Pending instruction.
#include "binder.h"
#include "int_eval.h"

namespace ptoas {
namespace bind {

namespace {

// Reads `%a, %b, ...` (ValueUse tokens separated by commas) until something
// else; returns the token indices.
std::vector<uint32_t> value_list(Binder::Cursor& c) {
  std::vector<uint32_t> out;
  while (c.peek() == Tok::ValueUse) {
    out.push_back(c.pos++);
    if (c.peek() == Tok::Comma && c.peek2() == Tok::ValueUse) ++c.pos;
    else break;
  }
  return out;
}

// Reads `[%a, %b]` into value tokens.
std::vector<uint32_t> bracket_values(Binder& b, Binder::Cursor& c, const char* what) {
  if (c.peek() != Tok::LBracket) c.fail_here(std::string("expected '[' for ") + what);
  Binder::Cursor in = c.enter();
  std::vector<uint32_t> out;
  while (!in.done()) {
    if (in.peek() != Tok::ValueUse)
      in.fail_here(std::string("expected an SSA value in ") + what);
    out.push_back(in.pos++);
    if (!in.done()) in.expect(Tok::Comma, "','");
  }
  return out;
}

void no_results(Binder& b, const SynStmt& s, const char* what) {
  if (!b.results_.empty()) b.fail(s.first, std::string(what) + " has no results");
}

void end_of_stmt(Binder::Cursor& c) {
  if (!c.done()) c.fail_here("unexpected token " + quoted(c.ptext()));
}

// `%a, %b : T, U` after an op (return, yield, condition's tail).
void typed_values(Binder& b, Binder::Cursor& c, std::vector<ValueId>& vals) {
  size_t base = vals.size();
  std::vector<uint32_t> toks = value_list(c);
  for (uint32_t t : toks) vals.push_back(b.use_value(t));
  if (toks.empty()) return;
  c.expect(Tok::Colon, "':' and the types of the values");
  std::vector<TypeId> types;
  for (;;) {
    types.push_back(b.parse_type(c));
    if (!c.accept(Tok::Comma)) break;
  }
  if (types.size() != toks.size())
    b.fail(toks[0], std::to_string(toks.size()) + " values but " + std::to_string(types.size()) +
                        " types");
  for (size_t i = 0; i < toks.size(); ++i)
    if (b.m_.values[vals[base + i]].type != types[i])
      b.fail(toks[i], quoted(b.text(toks[i])) + " has type " +
                          b.type_text(b.m_.values[vals[base + i]].type) + ", not " +
                          b.type_text(types[i]));
}

// `%a = %x, %b = %y` (scf.for iter_args, scf.while): returns the names and
// appends the initial values to `inits`.
std::vector<uint32_t> init_list(Binder& b, Binder::Cursor& in, std::vector<ValueId>& inits) {
  std::vector<uint32_t> names;
  while (!in.done()) {
    uint32_t nt = in.expect(Tok::ValueDef, "'%name = %init'");
    in.expect(Tok::Equal, "'='");
    // The lexer sees `%x, %b =` as a definition list, so an initial value
    // may arrive as a ValueDef token.
    uint32_t it = in.pos;
    if (in.peek() != Tok::ValueUse && in.peek() != Tok::ValueDef)
      in.fail_here("expected the initial value");
    ++in.pos;
    names.push_back(nt);
    inits.push_back(b.use_value(it));
    if (!in.done()) in.expect(Tok::Comma, "','");
  }
  return names;
}

}  // namespace

// func.func [private|public|nested] @name(%a: T, ...) [-> T | -> (T, ...)]
//           [attributes {...}] [{ body }]
void Binder::bind_func(Cursor& c, const SynStmt& s) {
  no_results(*this, s, "func.func");
  if (!in_module_body()) fail(s.op, "func.func must be at the module level");
  Pending p{Op::Func, tok(s.op).off};
  if (c.is_ident("private") || c.is_ident("public") || c.is_ident("nested")) {
    p.attrs.push_back({m_.strings.intern("sym_visibility"),
                       make_attr(AttrKind::String, "\"" + std::string(c.ptext()) + "\"", c.ptext())});
    ++c.pos;
  }
  uint32_t name_tok = c.expect(Tok::Symbol, "the function name '@name'");
  std::string_view nm = text(name_tok).substr(1);
  p.attrs.push_back({m_.strings.intern("sym_name"),
                     make_attr(AttrKind::Symbol, std::string(text(name_tok)), nm)});
  if (c.peek() != Tok::LParen) c.fail_here("expected '(' and the parameter list");
  std::vector<std::pair<uint32_t, TypeId>> params;
  // A declaration may give the parameter types alone: `@f(i32, f16)`.
  bool types_only = false;
  uint32_t params_tok = c.pos;
  {
    Cursor in = c.enter();
    types_only = !in.done() && in.peek() != Tok::ValueUse;
    while (!in.done()) {
      uint32_t vt = in.pos;
      if (types_only) {
        params.emplace_back(kNoIndex, parse_type(in));
      } else {
        if (in.peek() != Tok::ValueUse) in.fail_here("expected a parameter '%name: type'");
        ++in.pos;
        in.expect(Tok::Colon, "':' and the parameter type");
        params.emplace_back(vt, parse_type(in));
      }
      if (in.peek() == Tok::LBrace) {
        std::vector<NamedAttr> ignored;
        parse_attr_dict(in, ignored);
      }
      if (!in.done()) in.expect(Tok::Comma, "',' between parameters");
    }
  }
  std::vector<TypeId> results;
  if (c.accept(Tok::Arrow)) parse_type_list(c, results);
  if (c.accept_ident("attributes")) parse_attr_dict(c, p.attrs);
  uint32_t first_result = uint32_t(m_.type_lists.size());
  for (TypeId t : results) m_.type_lists.push_back(t);
  bool body = c.peek() == Tok::LBrace;
  if (body && types_only)
    fail(params_tok, "a function with a body names its parameters ('%name: type')");
  // A declaration keeps its parameter types after the result types.
  if (!body)
    for (const auto& pr : params) m_.type_lists.push_back(pr.second);
  if (body) {
    uint32_t brace = c.pos;
    c.enter();
    end_of_stmt(c);
    // Function bodies see only their own names (MLIR: IsolatedFromAbove).
    auto saved_names = std::move(names_);
    auto saved_undo = std::move(undo_);
    auto saved_marks = std::move(scope_marks_);
    names_.clear();
    undo_.clear();
    scope_marks_.clear();
    try {
      p.regions.push_back(bind_region(brace, params));
    } catch (...) {
      names_ = std::move(saved_names);
      undo_ = std::move(saved_undo);
      scope_marks_ = std::move(saved_marks);
      throw;
    }
    names_ = std::move(saved_names);
    undo_ = std::move(saved_undo);
    scope_marks_ = std::move(saved_marks);
  } else {
    end_of_stmt(c);
  }
  if (results.size() > 0xffff || params.size() > 0xffff) fail(s.op, "too many parameters or results");
  InstId id = emit(p);
  m_.insts[id].opnd = first_result;
  m_.insts[id].n_outs = uint16_t(results.size());
  m_.insts[id].n_ins = body ? 0 : uint16_t(params.size());
}

void Binder::bind_structural(Op op, Cursor& c, const SynStmt& s) {
  Pending p{op, tok(s.op).off};
  switch (op) {
    case Op::Return:
    case Op::Yield: {
      no_results(*this, s, op == Op::Return ? "return" : "scf.yield");
      typed_values(*this, c, p.ins);
      end_of_stmt(c);
      emit(p);
      return;
    }
    case Op::Condition: {
      no_results(*this, s, "scf.condition");
      if (c.peek() != Tok::LParen) c.fail_here("expected '(' and the condition");
      Cursor in = c.enter();
      uint32_t ct = in.expect(Tok::ValueUse, "the condition value");
      end_of_stmt(in);
      p.ins.push_back(use_value(ct));
      typed_values(*this, c, p.ins);
      end_of_stmt(c);
      emit(p);
      return;
    }
    case Op::Call: {
      uint32_t callee = c.expect(Tok::Symbol, "the callee '@name'");
      p.attrs.push_back({m_.strings.intern("callee"),
                         make_attr(AttrKind::Symbol, std::string(text(callee)),
                                   text(callee).substr(1))});
      if (c.peek() != Tok::LParen) c.fail_here("expected '(' and the arguments");
      Cursor in = c.enter();
      std::vector<uint32_t> args = value_list(in);
      end_of_stmt(in);
      for (uint32_t t : args) p.ins.push_back(use_value(t));
      c.expect(Tok::Colon, "':' and the function type");
      std::vector<TypeId> ins_t;
      parse_type_list(c, ins_t);
      if (ins_t.size() != args.size())
        c.fail_here("the function type has " + std::to_string(ins_t.size()) +
                    " inputs for " + std::to_string(args.size()) + " arguments");
      c.expect(Tok::Arrow, "'->' and the result types");
      parse_type_list(c, p.result_types);
      end_of_stmt(c);
      emit_with_results(p, results_);
      return;
    }
    case Op::For: {
      uint32_t iv = c.expect(Tok::IvDef, "the induction variable '%i ='");
      c.expect(Tok::Equal, "'='");
      uint32_t lb = c.expect(Tok::ValueUse, "the lower bound");
      c.expect_ident("to");
      uint32_t ub = c.expect(Tok::ValueUse, "the upper bound");
      c.expect_ident("step");
      uint32_t st = c.expect(Tok::ValueUse, "the step");
      p.ins = {use_value(lb), use_value(ub), use_value(st)};
      TypeId iv_type = m_.values[p.ins[0]].type;
      std::vector<std::pair<uint32_t, TypeId>> args;
      args.emplace_back(iv, iv_type);
      if (c.accept(Tok::Colon)) {
        iv_type = parse_type(c);
        args[0].second = iv_type;
      }
      if (c.accept_ident("iter_args")) {
        if (c.peek() != Tok::LParen) c.fail_here("expected '(' after iter_args");
        Cursor in = c.enter();
        std::vector<uint32_t> names = init_list(*this, in, p.ins);
        c.expect(Tok::Arrow, "'->' and the types of the loop results");
        parse_type_list(c, p.result_types);
        if (p.result_types.size() != names.size())
          c.fail_here("iter_args has " + std::to_string(names.size()) + " values but " +
                      std::to_string(p.result_types.size()) + " result types");
        for (size_t i = 0; i < names.size(); ++i) args.emplace_back(names[i], p.result_types[i]);
      }
      if (c.accept(Tok::Colon)) args[0].second = parse_type(c);
      if (c.peek() != Tok::LBrace) c.fail_here("expected the loop body '{'");
      uint32_t brace = c.pos;
      c.enter();
      if (c.peek() == Tok::LBrace) parse_attr_dict(c, p.attrs);  // `} {pto.unroll = "full"}`
      end_of_stmt(c);
      p.regions.push_back(bind_region(brace, args));
      emit_with_results(p, results_);
      return;
    }
    case Op::Fuse: {
      no_results(*this, s, "pto.fuse");
      if (c.peek() != Tok::LBrace) c.fail_here("expected the fused region '{'");
      uint32_t brace = c.pos;
      c.enter();
      end_of_stmt(c);
      p.regions.push_back(bind_region(brace, {}));
      emit(p);
      return;
    }
    case Op::If: {
      uint32_t ct = c.expect(Tok::ValueUse, "the condition");
      p.ins.push_back(use_value(ct));
      if (c.accept(Tok::Arrow)) parse_type_list(c, p.result_types);
      if (c.peek() != Tok::LBrace) c.fail_here("expected the 'then' region '{'");
      uint32_t then_b = c.pos, else_b = kNoIndex;
      c.enter();
      if (c.accept_ident("else")) {
        if (c.peek() != Tok::LBrace) c.fail_here("expected the 'else' region '{'");
        else_b = c.pos;
        c.enter();
        p.flags |= kInstElse;
      }
      end_of_stmt(c);
      RegionId r0 = reserve_regions(else_b == kNoIndex ? 1 : 2);
      p.regions.push_back(bind_region(then_b, {}, r0));
      if (else_b != kNoIndex) p.regions.push_back(bind_region(else_b, {}, r0 + 1));
      emit_with_results(p, results_);
      return;
    }
    case Op::While: {
      std::vector<uint32_t> names;
      if (c.peek() != Tok::LParen) c.fail_here("expected '(' and the initial values");
      {
        Cursor in = c.enter();
        names = init_list(*this, in, p.ins);
      }
      c.expect(Tok::Colon, "':' and the loop's function type");
      std::vector<TypeId> in_types;
      parse_type_list(c, in_types);
      c.expect(Tok::Arrow, "'->' and the result types");
      parse_type_list(c, p.result_types);
      if (in_types.size() != names.size())
        c.fail_here("the function type has " + std::to_string(in_types.size()) +
                    " inputs for " + std::to_string(names.size()) + " initial values");
      std::vector<std::pair<uint32_t, TypeId>> args;
      for (size_t i = 0; i < names.size(); ++i) args.emplace_back(names[i], in_types[i]);
      if (c.peek() != Tok::LBrace) c.fail_here("expected the 'before' region '{'");
      uint32_t before = c.pos;
      c.enter();
      c.expect_ident("do");
      if (c.peek() != Tok::LBrace) c.fail_here("expected the 'after' region '{'");
      uint32_t after = c.pos;
      c.enter();
      end_of_stmt(c);
      RegionId r0 = reserve_regions(2);
      p.regions.push_back(bind_region(before, args, r0));
      p.regions.push_back(bind_region(after, {}, r0 + 1));
      emit_with_results(p, results_);
      return;
    }
    default:
      fail(s.op, "internal: not a structural op");
  }
}

// MLIR's generic form of scf.for: `"scf.for"(%lb, %ub, %step, %init...)
// ({ ^bb0(%i: index, %acc: T...): ... }) {attrs} : (index, index, index,
// T...) -> (T...)`. It binds to the same instruction as the custom form
// (which the printer writes); the block header names the induction variable
// and the loop-carried values.
void Binder::bind_generic_for(Cursor& c, const SynStmt& s) {
  Pending p{Op::For, tok(s.op).off};
  p.form = Form::Generic;
  std::vector<uint32_t> vals;
  {
    Cursor in = c.enter();
    vals = value_list(in);
    end_of_stmt(in);
  }
  if (vals.size() < 3) fail(s.op, "'scf.for' takes a lower bound, an upper bound and a step");
  for (uint32_t t : vals) p.ins.push_back(use_value(t));
  if (c.peek() != Tok::LParen) c.fail_here("expected '(' and the loop body region");
  uint32_t brace;
  {
    Cursor rg = c.enter();
    brace = rg.pos;
    if (rg.peek() != Tok::LBrace || region_at(brace) == kNoIndex)
      rg.fail_here("expected the loop body region '{'");
    rg.enter();
    end_of_stmt(rg);
  }
  if (c.peek() == Tok::LBrace) parse_attr_dict(c, p.attrs);
  c.expect(Tok::Colon, "':' and the operation's function type");
  std::vector<TypeId> in_types;
  parse_type_list(c, in_types);
  c.expect(Tok::Arrow, "'->' and the result types");
  parse_type_list(c, p.result_types);
  end_of_stmt(c);
  if (in_types.size() != vals.size())
    fail(s.op, "the function type has " + std::to_string(in_types.size()) + " inputs for " +
                   std::to_string(vals.size()) + " operands");
  for (size_t i = 0; i < vals.size(); ++i)
    if (m_.values[p.ins[i]].type != in_types[i])
      fail(vals[i], quoted(text(vals[i])) + " has type " + type_text(m_.values[p.ins[i]].type) +
                        ", not " + type_text(in_types[i]));
  if (p.result_types.size() != vals.size() - 3)
    fail(s.op, "'scf.for' has " + std::to_string(vals.size() - 3) + " loop-carried values but " +
                   std::to_string(p.result_types.size()) + " result types");
  RegionId r = bind_region(brace, {});
  const Region& reg = m_.regions[r];
  if (reg.arg_count != vals.size() - 2)
    fail(brace, "the loop body must take the induction variable and " +
                    std::to_string(vals.size() - 3) + " loop-carried values as block arguments");
  for (size_t i = 0; i + 1 < reg.arg_count; ++i)
    if (m_.values[m_.region_arg(reg, unsigned(i + 1))].type != p.result_types[i])
      fail(brace, "block argument #" + std::to_string(i + 1) + " has type " +
                      type_text(m_.values[m_.region_arg(reg, unsigned(i + 1))].type) +
                      ", the loop-carried value " + type_text(p.result_types[i]));
  p.regions.push_back(r);
  emit_with_results(p, results_);
}

void Binder::bind_scalar(Op op, Cursor& c, const SynStmt& s) {
  Pending p{op, tok(s.op).off};
  Syn syn = op_info(op).syn;
  switch (syn) {
    case Syn::Const: {
      uint32_t lit = c.pos;
      Tok k = c.peek();
      TypeId ty = kNone;
      AttrKind ak = AttrKind::Other;
      int64_t iv = 0;
      if (k == Tok::Int || k == Tok::Hex || k == Tok::Float) {
        ++c.pos;
        ak = k == Tok::Float ? AttrKind::Float : AttrKind::Int;
      } else if (c.is_ident("true") || c.is_ident("false")) {
        iv = c.ptext() == "true";
        ++c.pos;
        ak = AttrKind::Bool;
        ty = scalar(DType::I1);
      } else if (c.is_ident("dense") && c.peek2() == Tok::LAngle) {
        ++c.pos;
        c.enter();
      } else {
        c.fail_here("expected a constant value");
      }
      std::string lit_text = render(lit, c.pos);
      if (c.accept(Tok::Colon)) ty = parse_type(c);
      if (ty == kNone) c.fail_here("expected ':' and the constant's type");
      end_of_stmt(c);
      const Type& t = m_.types.get(ty);
      Attr a;
      if (ak == AttrKind::Int || ak == AttrKind::Float) {
        a = literal_attr(lit, ty);
      } else {
        a.kind = ak;
        a.ival = iv;
        a.dtype = t.elem;
        a.text = m_.strings.intern(lit_text);
      }
      p.attrs.push_back({m_.strings.intern("value"), m_.intern_attr(a)});
      p.result_types.push_back(ty);
      emit_with_results(p, results_);
      return;
    }
    case Syn::ArithBin:
    case Syn::ArithUn:
    case Syn::ArithSelect:
    case Syn::ArithCmp: {
      if (syn == Syn::ArithCmp) {
        if (c.peek() != Tok::Ident) c.fail_here("expected a comparison predicate (eq, slt, ...)");
        std::string_view pred = c.ptext();
        p.attrs.push_back({m_.strings.intern("predicate"),
                           make_attr(AttrKind::Enum, std::string(pred), pred)});
        ++c.pos;
        c.expect(Tok::Comma, "','");
      }
      std::vector<uint32_t> vals = value_list(c);
      size_t want = syn == Syn::ArithUn ? 1 : syn == Syn::ArithSelect ? 3 : 2;
      if (vals.size() != want)
        c.fail_here(std::string(op_name(op)) + " takes " + std::to_string(want) + " operands");
      for (uint32_t t : vals) p.ins.push_back(use_value(t));
      if (c.is_ident("overflow") && c.peek2() == Tok::LAngle) {
        uint32_t b0 = c.pos;
        ++c.pos;
        c.enter();
        p.attrs.push_back({m_.strings.intern("overflowFlags"),
                           make_attr(AttrKind::Other, render(b0, c.pos))});
      }
      if (c.peek() == Tok::LBrace) parse_attr_dict(c, p.attrs);
      c.expect(Tok::Colon, "':' and the operand type");
      TypeId ty = parse_type(c);
      if (syn == Syn::ArithSelect && c.accept(Tok::Comma)) ty = parse_type(c);  // `: i1, T`
      end_of_stmt(c);
      p.result_types.push_back(syn == Syn::ArithCmp ? scalar(DType::I1) : ty);
      emit_with_results(p, results_);
      return;
    }
    case Syn::ArithCast: {
      uint32_t v = c.expect(Tok::ValueUse, "the operand");
      ValueId val = use_value(v);
      p.ins.push_back(val);
      c.expect(Tok::Colon, "':' and the source type");
      TypeId src = parse_type(c);
      // The stated source type is the operand's (a value of unknown type,
      // from an opaque op, takes it).
      TypeId& have = m_.values[val].type;
      if (m_.types.text(have) == "!pto.unknown") have = src;
      else if (have != src)
        fail(v, quoted(text(v)) + " has type " + type_text(have) + ", not " + type_text(src));
      c.expect_ident("to");
      p.result_types.push_back(parse_type(c));
      end_of_stmt(c);
      emit_with_results(p, results_);
      return;
    }
    case Syn::NoArgs: {
      TypeId ty = scalar(DType::I64);
      if (c.accept(Tok::Colon)) ty = parse_type(c);
      if (c.accept(Tok::Arrow)) ty = parse_type(c);
      end_of_stmt(c);
      p.result_types.push_back(ty);
      emit_with_results(p, results_);
      return;
    }
    default:
      fail(s.op, "internal: not a scalar op");
  }
}

void Binder::bind_view(Op op, Cursor& c, const SynStmt& s) {
  Pending p{op, tok(s.op).off};
  switch (op) {
    case Op::MakeTensorView:
    case Op::PartitionView: {
      bool mtv = op == Op::MakeTensorView;
      uint32_t src = c.expect(Tok::ValueUse, mtv ? "the base pointer" : "the tensor view");
      p.ins.push_back(use_value(src));
      c.expect(Tok::Comma, "','");
      const char* k1 = mtv ? "shape" : "offsets";
      const char* k2 = mtv ? "strides" : "sizes";
      c.expect_ident(k1);
      c.expect(Tok::Equal, "'='");
      std::vector<uint32_t> a = bracket_values(*this, c, k1);
      c.expect(Tok::Comma, "','");
      c.expect_ident(k2);
      c.expect(Tok::Equal, "'='");
      std::vector<uint32_t> b2 = bracket_values(*this, c, k2);
      if (a.size() != b2.size())
        c.fail_here(std::string(k1) + " and " + k2 + " must have the same length");
      for (uint32_t t : a) p.ins.push_back(use_value(t));
      for (uint32_t t : b2) p.ins.push_back(use_value(t));
      if (c.peek() == Tok::LBrace) parse_attr_dict(c, p.attrs);
      c.expect(Tok::Colon, "':' and the view type");
      TypeId ty = parse_type(c, mtv ? TypeKind::TensorView : TypeKind::PartitionView);
      if (!mtv) {
        if (c.accept(Tok::Arrow)) {
          ty = parse_type(c, TypeKind::PartitionView);
        } else if (m_.types.get(ty).kind == TypeKind::TensorView && m_.types.get(ty).rank == b2.size()) {
          // 0.60's short form names only the source view: the result is the
          // partition of its element type, static where a size is a constant.
          Type pt = m_.types.get(ty);
          pt.kind = TypeKind::PartitionView;
          pt.text = kNone;
          pt.dims = kNone;
          std::vector<int64_t> dims;
          for (size_t i = 0; i < b2.size(); ++i) {
            int64_t v = 0;
            ValueId sv = p.ins[p.ins.size() - b2.size() + i];
            dims.push_back(int_constant(m_, sv, v) && v >= 0 ? v : kDyn);
          }
          ty = m_.types.intern(pt, dims);
        }
      }
      end_of_stmt(c);
      const Type& t = m_.types.get(ty);
      TypeKind want = mtv ? TypeKind::TensorView : TypeKind::PartitionView;
      if (t.kind != want)
        fail(s.op, std::string(op_name(op)) + " must produce a " +
                       (mtv ? "!pto.tensor_view" : "!pto.partition_tensor_view") + ", not " +
                       type_text(ty));
      if (t.rank != a.size() && !(mtv && t.rank == 0))
        fail(s.op, "the view type has rank " + std::to_string(t.rank) + " but " +
                       std::to_string(a.size()) + " " + k1 + " are given");
      p.result_types.push_back(ty);
      emit_with_results(p, results_);
      return;
    }
    case Op::GetTensorViewDim:
    case Op::AddPtr: {
      uint32_t a = c.expect(Tok::ValueUse, "an operand");
      c.expect(Tok::Comma, "','");
      uint32_t b2 = c.expect(Tok::ValueUse, "an operand");
      p.ins = {use_value(a), use_value(b2)};
      c.expect(Tok::Colon, "':' and the types");
      TypeId t0 = parse_type(c, op == Op::AddPtr ? TypeKind::Ptr : TypeKind::TensorView);
      TypeId rt = op == Op::AddPtr ? t0 : scalar(DType::Index);
      if (c.accept(Tok::Arrow)) rt = parse_type(c, op == Op::AddPtr ? TypeKind::Ptr : TypeKind::Other);
      end_of_stmt(c);
      p.result_types.push_back(rt);
      emit_with_results(p, results_);
      return;
    }
    case Op::AllocTile: {
      const char* keys[] = {"addr", "valid_row", "valid_col"};
      uint8_t bits[] = {kInstHasAddr, kInstHasValidRow, kInstHasValidCol};
      for (int k = 0; k < 3; ++k) {
        if (c.accept_ident(keys[k])) {
          c.expect(Tok::Equal, "'='");
          uint32_t v = c.expect(Tok::ValueUse, "an SSA value");
          p.ins.push_back(use_value(v));
          p.flags |= bits[k];
        }
      }
      c.expect(Tok::Colon, "':' and the tile type");
      TypeId ty = parse_type(c, TypeKind::TileBuf);
      end_of_stmt(c);
      if (m_.types.get(ty).kind != TypeKind::TileBuf)
        fail(s.op, "pto.alloc_tile must produce a !pto.tile_buf, not " + type_text(ty));
      p.result_types.push_back(ty);
      emit_with_results(p, results_);
      return;
    }
    case Op::SetValidShape: {
      no_results(*this, s, "pto.set_validshape");
      std::vector<uint32_t> vals = value_list(c);
      if (vals.size() != 3) c.fail_here("pto.set_validshape takes a tile, rows and cols");
      for (uint32_t t : vals) p.ins.push_back(use_value(t));
      if (c.accept(Tok::Colon)) {
        TypeId ty = parse_type(c, TypeKind::TileBuf);
        if (ty != m_.values[p.ins[0]].type)
          fail(vals[0], quoted(text(vals[0])) + " has type " +
                            type_text(m_.values[p.ins[0]].type) + ", not " + type_text(ty));
      }
      end_of_stmt(c);
      emit(p);
      return;
    }
    case Op::Subset: {
      uint32_t v = c.expect(Tok::ValueUse, "the tile");
      p.ins.push_back(use_value(v));
      std::vector<uint32_t> idx = bracket_values(*this, c, "the subset offsets");
      if (idx.size() != 2) fail(v, "pto.subset takes a row and a column offset");
      for (uint32_t t : idx) p.ins.push_back(use_value(t));
      c.expect_ident("sizes");
      if (c.peek() != Tok::LBracket) c.fail_here("expected '[rows, cols]'");
      uint32_t sb = c.pos;
      Cursor in = c.enter();
      int64_t sz[2];
      for (int k = 0; k < 2; ++k) {
        uint32_t it = in.expect(Tok::Int, "an integer size");
        sz[k] = std::strtoll(std::string(text(it)).c_str(), nullptr, 10);
        if (sz[k] <= 0 || sz[k] > (1 << 24)) fail(it, "subset size out of range");
        if (k == 0) in.expect(Tok::Comma, "','");
      }
      end_of_stmt(in);
      p.attrs.push_back({m_.strings.intern("sizes"), make_attr(AttrKind::Other, render(sb, c.pos))});
      c.expect(Tok::Colon, "':' and the source tile type");
      TypeId ty = parse_type(c, TypeKind::TileBuf);
      end_of_stmt(c);
      if (ty != m_.values[p.ins[0]].type)
        fail(v, quoted(text(v)) + " has type " + type_text(m_.values[p.ins[0]].type) +
                    ", not " + type_text(ty));
      Type rt = m_.types.get(ty);
      rt.rows = rt.vrow = int32_t(sz[0]);
      rt.cols = rt.vcol = int32_t(sz[1]);
      rt.text = kNone;
      p.result_types.push_back(m_.types.intern(rt));
      emit_with_results(p, results_);
      return;
    }
    default:
      fail(s.op, "internal: not a view op");
  }
}

}  // namespace bind
}  // namespace ptoas
