// Binder: tile instructions in all three spellings, MLIR's generic form, and
// opaque (NPU-only) operations.
//
//   DPS       pto.tadd ins(%a, %b : T, T) outs(%c : T) {attrs}
//   SSA       %c = pto.tadd %a, %b : (T, T) -> T       (an implicit alloc_tile)
//   assembly  tadd %c, %a, %b : T   |   %c = tadd %a, %b : T   [#key=value ...]
//   generic   "pto.tmov"(%a, %c) <{operandSegmentSizes = ...}> : (T, T) -> ()
// All of them bind to the same DPS instruction; the printer writes DPS.
#include "binder.h"
#include "vpto_types.h"

namespace ptoas {
namespace bind {

namespace {

bool sig_has_tile_out(const char* outs) {
  for (const char* p = outs; *p && *p != '|'; ++p)
    if (*p == 't') return true;
  return false;
}

unsigned sig_count(const char* sig) {  // operands of the first alternative, optional ones too
  unsigned n = 0;
  for (const char* p = sig; *p && *p != '|'; ++p)
    if (*p != '?' && *p != '*') ++n;
  return n;
}

TypeId unknown_type(Module& m) {
  Type t;
  t.kind = TypeKind::Other;
  t.text = m.strings.intern("!pto.unknown");
  return m.types.intern(t);
}

// Checks (or, for values of unknown type, learns) the type a use annotates.
void check_use_type(Binder& b, uint32_t tok, ValueId v, TypeId annotated) {
  Value& val = b.m_.values[v];
  if (val.type == annotated) return;
  if (b.m_.types.text(val.type) == "!pto.unknown") {
    val.type = annotated;
    return;
  }
  b.fail(tok, quoted(b.text(tok)) + " has type " + b.type_text(val.type) + ", not " +
                  b.type_text(annotated));
}

// Assembly-form attribute `#cmp=gt` -> {cmpMode = #pto<cmp gt>}.
NamedAttr asm_attr(Binder& b, Binder::Cursor& c) {
  uint32_t key_tok = c.pos++;
  std::string key(b.text(key_tok).substr(1));
  c.expect(Tok::Equal, "'=' after the attribute name");
  if (c.peek() == Tok::Ident) {
    std::string w(c.ptext());
    ++c.pos;
    std::string name = key, text;
    if (key == "cmp" || key == "cmpMode") {
      name = "cmpMode";
      text = "#pto<cmp " + w + ">";
    } else if (key == "rmode" || key == "rnd" || key == "round") {
      name = "rmode";
      for (char& ch : w) ch = char(std::toupper((unsigned char)ch));
      text = "#pto<round_mode " + w + ">";
    } else if (key == "atomic") {
      name = "atomicType";
      w = w == "add" ? "atomic_add" : w == "none" ? "atomic_none" : w;
      text = "#pto<atomic_type " + w + ">";
    } else if (key == "sat") {
      name = "sat_mode";
      for (char& ch : w) ch = char(std::toupper((unsigned char)ch));
      text = "#pto<saturation_mode " + w + ">";
    } else {
      text = w;
    }
    return NamedAttr{b.m_.strings.intern(name), b.make_attr(AttrKind::Enum, text, w)};
  }
  return NamedAttr{b.m_.strings.intern(key), b.parse_attr_value(c)};
}

// A keyword operand of 0.60's DPS groups: `fp %fp : T` (the fixpipe
// parameter tile), `pre_quant %s : T` (the quantization scalar).
struct KeywordOperand {
  std::string_view key;
  ValueId v;
  uint32_t tok;
};

// Reads a DPS operand group: `%a, %b {attrs} : T1, T2` or `%a : T1, %b : T2`,
// then keyword operands (when `kw` takes them) and the unit word `no_tmp`.
// With `axis`, a string after the types is the mask-pattern form's axis of
// tgather/tscatter: `ins(%src, {maskPattern = ...} : T, "row")`.
void dps_group(Binder& b, Binder::Cursor& in, std::vector<ValueId>& vals,
               std::vector<NamedAttr>& attrs, std::vector<KeywordOperand>* kw = nullptr,
               bool axis = false) {
  std::vector<uint32_t> toks;
  std::vector<TypeId> types;
  bool typing = false;
  while (!in.done()) {
    Tok k = in.peek();
    if (k == Tok::Ident && in.ptext() == "no_tmp") {
      ++in.pos;
      attrs.push_back({b.m_.strings.intern("no_tmp"), b.make_attr(AttrKind::Unit, "unit")});
      continue;
    }
    if (kw && k == Tok::Ident && in.peek2() == Tok::ValueUse &&
        (in.ptext() == "fp" || in.ptext() == "pre_quant") &&
        (types.size() == toks.size() || !typing)) {
      uint32_t key_tok = in.pos++;
      uint32_t vt = in.pos++;
      in.expect(Tok::Colon, "':' and the operand's type");
      TypeId ty = b.parse_type(in);
      ValueId v = b.use_value(vt);
      check_use_type(b, vt, v, ty);
      kw->push_back({b.text(key_tok), v, key_tok});
      if (!in.done() && in.peek() != Tok::Comma && in.peek() != Tok::Ident) in.fail_here("expected ','");
      continue;
    }
    if (k == Tok::ValueUse && !typing) {
      toks.push_back(in.pos++);
    } else if (k == Tok::ValueUse && typing && types.size() == toks.size()) {
      typing = false;  // `%a : T, %b : T`
      toks.push_back(in.pos++);
    } else if (k == Tok::LBrace) {
      b.parse_attr_dict(in, attrs);
    } else if (k == Tok::Colon && !typing) {
      ++in.pos;
      typing = true;
      types.push_back(b.parse_type(in));
    } else if (typing && axis && k == Tok::String) {
      attrs.push_back({b.m_.strings.intern("axis"), b.parse_attr_value(in)});
    } else if (typing && k != Tok::Comma) {
      types.push_back(b.parse_type(in));
    } else if (k == Tok::Comma) {
      ++in.pos;
      continue;
    } else if (k == Tok::Int || k == Tok::Float || k == Tok::Hex) {
      in.fail_here("DPS operands are SSA values; define the scalar with arith.constant");
    } else {
      in.fail_here("expected an operand, found " + quoted(in.ptext()));
    }
    if (!in.done() && in.peek() != Tok::Comma && in.peek() != Tok::Colon &&
        in.peek() != Tok::LBrace && !(typing && in.peek() == Tok::ValueUse) &&
        !(in.peek() == Tok::Ident && (in.ptext() == "no_tmp" || (kw && in.peek2() == Tok::ValueUse))))
      in.fail_here("expected ',' or ':'");
  }
  if (types.size() != toks.size())
    b.fail(toks.empty() ? in.pos - 1 : toks[0],
           std::to_string(toks.size()) + " operand" + (toks.size() == 1 ? "" : "s") + " but " +
               std::to_string(types.size()) + " type" + (types.size() == 1 ? "" : "s"));
  for (size_t i = 0; i < toks.size(); ++i) {
    ValueId v = b.use_value(toks[i]);
    check_use_type(b, toks[i], v, types[i]);
    vals.push_back(v);
  }
}

ValueId implicit_constant(Binder& b, uint32_t lit_tok, TypeId type, uint32_t loc) {
  Binder::Pending p{Op::Constant, loc};
  Attr a = b.literal_attr(lit_tok, type);
  p.attrs.push_back({b.m_.strings.intern("value"), b.m_.intern_attr(a)});
  p.result_types.push_back(type);
  InstId id = b.emit(p);
  std::string name = b.fresh_name("cst");
  ValueId v = b.def_value(kNoIndex, name, type, id);
  b.m_.insts[id].res = v;
  b.m_.insts[id].n_res = 1;
  return v;
}

}  // namespace

void Binder::bind_dps(Op op, Cursor& c, const SynStmt& s) {
  const OpInfo& info = op_info(op);
  Pending p{op, tok(s.op).off};
  bool keyword_form = c.is_ident("ins") || c.is_ident("outs");
  if (keyword_form) {
    if (!results_.empty())
      fail(s.first, "the ins(...) outs(...) form names no results; the outs are the results");
    p.form = Form::Dps;
    std::vector<KeywordOperand> kw;
    if (c.accept_ident("ins")) {
      if (c.peek() != Tok::LParen) c.fail_here("expected '(' after ins");
      Cursor in = c.enter();
      dps_group(*this, in, p.ins, p.attrs, &kw, op == Op::TGather || op == Op::TScatter);
    }
    for (const KeywordOperand& k : kw) {
      if (k.key == "pre_quant") {
        p.ins.push_back(k.v);
        continue;
      }
      // `fp %f`: the op's fixpipe form in the table (`pto.tstore_fp`,
      // `pto.tmov.fp`: lookup takes '_' for '.'), which takes the tile second.
      Op fp_op = lookup_op(std::string(op_name(p.op)) + "_fp");
      if (fp_op == Op::Count || p.ins.empty())
        fail(k.tok, "an 'fp' operand is not allowed on " + quoted(op_name(p.op)));
      p.op = fp_op;
      p.ins.insert(p.ins.begin() + 1, k.v);
    }
    if (c.accept_ident("outs")) {
      if (c.peek() != Tok::LParen) c.fail_here("expected '(' after outs");
      Cursor in = c.enter();
      dps_group(*this, in, p.outs, p.attrs);
    }
    if (c.peek() == Tok::LBrace) parse_attr_dict(c, p.attrs);
    if (!c.done()) c.fail_here("unexpected token " + quoted(c.ptext()) + " after outs(...)");
  } else {
    // SSA or assembly form: operands, attributes, then types.
    p.form = results_.empty() ? Form::Asm : Form::Ssa;
    std::vector<uint32_t> opnd_toks;  // ValueUse or literal tokens
    while (!c.done() && c.peek() != Tok::Colon) {
      Tok k = c.peek();
      if (k == Tok::ValueUse || k == Tok::Int || k == Tok::Float || k == Tok::Hex) {
        opnd_toks.push_back(c.pos++);
        if (c.peek() == Tok::LBracket)
          c.fail_here("indexed memory operands are not supported; address GM through "
                      "pto.partition_view");
      } else if (k == Tok::Comma) {
        ++c.pos;
      } else if (k == Tok::LBrace) {
        parse_attr_dict(c, p.attrs);
      } else if (k == Tok::AttrAlias && c.peek2() == Tok::Equal) {
        p.attrs.push_back(asm_attr(*this, c));
      } else {
        c.fail_here("expected an operand, found " + quoted(c.ptext()));
      }
    }
    std::vector<TypeId> types, res_types;
    if (c.accept(Tok::Colon)) {
      if (c.peek() == Tok::LParen) {
        parse_type_list(c, types);
      } else {
        for (;;) {
          types.push_back(parse_type(c));
          if (!c.accept(Tok::Comma)) break;
        }
      }
      if (c.accept(Tok::Arrow)) parse_type_list(c, res_types);
    }
    while (c.peek() == Tok::AttrAlias && c.peek2() == Tok::Equal) p.attrs.push_back(asm_attr(*this, c));
    if (!c.done()) c.fail_here("unexpected token " + quoted(c.ptext()));
    if (types.empty()) fail(s.op, "expected ':' and the operand types");
    // One type for everything (`: !pto.tile<...>`): tiles get it, scalars
    // and literals get its element type.
    TypeId tile_t = kNone;
    for (TypeId t : types)
      if (m_.types.get(t).kind == TypeKind::TileBuf) { tile_t = t; break; }
    // Which operands are destinations (assembly form without results):
    // the first ones for tile outputs, the last ones for GM outputs.
    unsigned n_out_first = 0;
    if (results_.empty() && sig_has_tile_out(info.outs))
      for (const char* q = info.outs; *q && *q != '|'; ++q)
        if (*q == 't') ++n_out_first;
    // `tadd %c, %a, %b : (T, T) -> T`: the function type's result types
    // belong to the leading destinations.
    if (results_.empty() && n_out_first && res_types.size() == n_out_first &&
        types.size() + res_types.size() == opnd_toks.size()) {
      types.insert(types.begin(), res_types.begin(), res_types.end());
      res_types.clear();
    }
    bool uniform = types.size() == 1;
    if (res_types.empty() && !results_.empty()) {
      if (tile_t == kNone) fail(s.op, "cannot tell the result type; write ': (...) -> T'");
      res_types.assign(results_.size(), types.size() == opnd_toks.size() + results_.size()
                                            ? types.back() : tile_t);
    }
    if (!uniform && types.size() != opnd_toks.size())
      fail(s.op, std::to_string(opnd_toks.size()) + " operands but " +
                     std::to_string(types.size()) + " types");
    std::vector<ValueId> vals;
    for (size_t i = 0; i < opnd_toks.size(); ++i) {
      uint32_t t = opnd_toks[i];
      TypeId want = uniform ? types[0] : types[i];
      if (kind(t) == Tok::ValueUse) {
        ValueId v = use_value(t);
        const Type& vt = m_.type_of(v);
        // A single type names the source tiles: scalars and the destination
        // keep their own declared types.
        bool skip = uniform && (vt.kind == TypeKind::Scalar || i < n_out_first);
        if (!skip) check_use_type(*this, t, v, want);
        vals.push_back(v);
      } else {
        TypeId st = want;
        if (m_.types.get(st).kind == TypeKind::TileBuf) st = scalar(m_.types.get(st).elem);
        vals.push_back(implicit_constant(*this, t, st, tok(t).off));
      }
    }
    if (!results_.empty()) {
      // SSA: every operand is an input; each result becomes a fresh tile.
      p.ins = vals;
      if (res_types.size() != results_.size())
        fail(results_[0], std::to_string(results_.size()) + " results but " +
                              std::to_string(res_types.size()) + " result types");
      for (size_t i = 0; i < results_.size(); ++i) {
        if (m_.types.get(res_types[i]).kind != TypeKind::TileBuf)
          fail(results_[i], "a tile instruction's result must be a tile, not " +
                                type_text(res_types[i]));
        Pending a{Op::AllocTile, tok(s.op).off};
        // pto.treshape returns its result in the official tool (a view of
        // its source, no tile of the program): that allocation is implicit
        // (Form::Ssa), needs no addr at level 3, and the op prints back in
        // SSA form. The docs' SSA spelling of the other tile ops allocates a
        // tile of the program and prints in DPS form.
        if (op == Op::TReshape) a.form = Form::Ssa;
        a.result_types.push_back(res_types[i]);
        std::vector<uint32_t> one{results_[i]};
        auto saved_res = results_;
        auto saved_idx = result_index_;
        auto saved_grp = result_group_;
        result_index_ = {saved_idx[i]};
        result_group_ = {saved_grp[i]};
        InstId aid = emit_with_results(a, one);
        results_ = saved_res;
        result_index_ = saved_idx;
        result_group_ = saved_grp;
        p.outs.push_back(m_.insts[aid].res);
      }
    } else if (sig_has_tile_out(info.outs)) {
      // Assembly form: destinations first.
      unsigned n_out = 0;
      for (const char* q = info.outs; *q && *q != '|'; ++q)
        if (*q == 't') ++n_out;
      if (vals.size() < n_out) fail(s.op, "missing the destination operand");
      p.outs.assign(vals.begin(), vals.begin() + n_out);
      p.ins.assign(vals.begin() + n_out, vals.end());
    } else {
      // tstore-like (destination is GM): sources first, as the docs write it.
      unsigned n_out = sig_count(info.outs);
      if (vals.size() < n_out) fail(s.op, "missing the destination operand");
      p.ins.assign(vals.begin(), vals.end() - n_out);
      p.outs.assign(vals.end() - n_out, vals.end());
    }
  }
  if (op == Op::TDivS && !p.ins.empty() && m_.type_of(p.ins[0]).kind == TypeKind::Scalar)
    p.flags |= kInstScalarFirst;
  emit(p);
}

void Binder::bind_generic(Op op, Cursor& c, const SynStmt& s) {
  Pending p{op, tok(s.op).off};
  p.form = Form::Generic;
  Syn syn = op_info(op).syn;
  if (syn == Syn::Opaque) {
    bind_opaque(op, c, s);
    return;
  }
  // Ops with their own syntax class keep operands and attributes in fixed
  // places (the predicate of cmpi, the sizes of subset, regions and induction
  // variables of scf.for) that the printer, verifier and backends read; binding
  // their generic form as an opaque op would build an instruction without them.
  if (syn != Syn::Dps)
    fail(s.op, "the generic form of '" + std::string(op_name(op)) +
                   "' is not supported; write it in its custom form");
  if (!results_.empty()) fail(s.first, "tile instructions in generic form have no results");
  Cursor in = c.enter();
  std::vector<uint32_t> toks;
  while (!in.done()) {
    toks.push_back(in.expect(Tok::ValueUse, "an operand"));
    if (!in.done()) in.expect(Tok::Comma, "','");
  }
  std::vector<int64_t> segments;
  if (c.peek() == Tok::LAngle) {
    Cursor props = c.enter();
    std::vector<NamedAttr> pa;
    parse_attr_dict(props, pa);
    if (!props.done()) props.fail_here("expected '}>' after the properties");
    for (const NamedAttr& na : pa) {
      if (m_.str(na.key) != "operandSegmentSizes") {
        p.attrs.push_back(na);
        continue;
      }
      // array<i32: 1, 1, 0, 1>
      std::string_view t = m_.str(m_.attr(na.value).text);
      size_t colon = t.find(':');
      if (colon == std::string_view::npos) fail(s.op, "malformed operandSegmentSizes");
      int64_t cur = -1;
      for (size_t i = colon + 1; i < t.size(); ++i) {
        if (std::isdigit((unsigned char)t[i])) {
          cur = (cur < 0 ? 0 : cur) * 10 + (t[i] - '0');
          if (cur > 0xffff) fail(s.op, "malformed operandSegmentSizes");
        } else if (cur >= 0) {
          segments.push_back(cur);
          cur = -1;
        }
      }
    }
  }
  if (c.peek() == Tok::LBrace) parse_attr_dict(c, p.attrs);
  c.expect(Tok::Colon, "':' and the function type");
  std::vector<TypeId> types, res;
  parse_type_list(c, types);
  c.expect(Tok::Arrow, "'->'");
  parse_type_list(c, res);
  if (!c.done()) c.fail_here("unexpected token " + quoted(c.ptext()));
  if (!res.empty()) fail(s.op, "tile instructions in generic form return '()'");
  if (types.size() != toks.size())
    fail(s.op, std::to_string(toks.size()) + " operands but " + std::to_string(types.size()) +
                   " types");
  int64_t total = 0;
  for (int64_t n : segments) total += n;
  if (!segments.empty() && total != int64_t(toks.size()))
    fail(s.op, "operandSegmentSizes adds up to " + std::to_string(total) + ", not " +
                   std::to_string(toks.size()));
  // ODS order of most of these ops: src, dst, then optional extra inputs;
  // tinsert's is src, indexRow, indexCol, dst, fp, preQuantScalar. Without
  // segment sizes the destination is the last operand.
  const bool insert = op == Op::TInsert;
  const size_t dst_seg = insert ? 3 : 1;
  ValueId fp = kNone;
  size_t idx = 0;
  for (size_t seg = 0; seg < (segments.empty() ? 1 : segments.size()); ++seg) {
    size_t n = segments.empty() ? toks.size() : size_t(segments[seg]);
    for (size_t k = 0; k < n; ++k, ++idx) {
      ValueId v = use_value(toks[idx]);
      check_use_type(*this, toks[idx], v, types[idx]);
      bool is_out = segments.empty() ? idx + 1 == toks.size() : seg == dst_seg;
      if (insert && !segments.empty() && seg == 4) fp = v;
      else (is_out ? p.outs : p.ins).push_back(v);
    }
  }
  // tinsert with an fp tile is the table's tinsert_fp (fp second), as the
  // `fp %f` keyword form binds it.
  if (fp != kNone) {
    p.op = Op::TInsertFp;
    p.ins.insert(p.ins.begin() + (p.ins.empty() ? 0 : 1), fp);
  }
  emit(p);
}

void Binder::bind_opaque(Op op, Cursor& c, const SynStmt& s) {
  Pending p{op, tok(s.op).off};
  if (kind(s.op) == Tok::GenericOp) p.form = Form::Generic;
  uint32_t body_b = c.pos, body_e = c.end;
  // Operands: every value named outside nested regions, in order.
  for (uint32_t i = body_b; i < body_e; ++i) {
    if (kind(i) == Tok::LBrace && region_at(i) != kNoIndex) {
      i = partner(i);
      continue;
    }
    if (kind(i) == Tok::ValueUse) p.ins.push_back(use_value(i));
  }
  // Result types: after the last top-level '->'; for allocations and casts
  // after the last ':' (or 'to').
  uint32_t arrow = kNoIndex, colon = kNoIndex, to = kNoIndex;
  for (uint32_t i = body_b; i < body_e; ++i) {
    Tok k = kind(i);
    if (k == Tok::LParen || k == Tok::LBracket || k == Tok::LAngle || k == Tok::LBrace) {
      i = partner(i);
      continue;
    }
    if (k == Tok::Arrow) arrow = i;
    if (k == Tok::Colon) colon = i;
    if (k == Tok::Ident && text(i) == "to") to = i;
  }
  uint32_t types_at = arrow;
  if (types_at == kNoIndex && (op == Op::MemrefAlloc || op == Op::PointerCast)) types_at = colon;
  if (types_at == kNoIndex &&
      (op == Op::MemrefReinterpretCast || op == Op::BuiltinUnrealizedConversionCast))
    types_at = to;
  if (!results_.empty()) {
    std::vector<TypeId> rt;
    if (types_at != kNoIndex) {
      // The types end at a region that follows them (`scf.execute_region
      // -> i32 { ... }`).
      uint32_t stop = types_at + 1;
      while (stop < body_e && !(kind(stop) == Tok::LBrace && region_at(stop) != kNoIndex)) ++stop;
      Cursor tc{this, types_at + 1, stop};
      parse_type_list(tc, rt);
      if (!tc.done()) rt.clear();
    }
    Sem sem = op_info(op).sem;
    // Without '->', a custom format that ends in `: T` (`outs : f32`,
    // `: !pto.multi_tile_buf<...>`) names the result types there.
    if (rt.empty() && types_at == kNoIndex && colon != kNoIndex) {
      Cursor tc{this, colon + 1, body_e};
      parse_type_list(tc, rt);
      if (!tc.done() || rt.size() != results_.size()) rt.clear();
    }
    if (sem == Sem::Vpto || sem == Sem::Vmi) vpto_result_types(*this, body_b, body_e, results_.size(), rt);
    // get_validshape's `: T` names its tile; its results are the valid rows
    // and columns.
    if (op == Op::GetValidShape) rt.assign(results_.size(), scalar(DType::Index));
    // `llvm.extractelement %v[%i : i32] : vector<2xf32>` names the vector's
    // type; the result is one element.
    if (op == Op::LlvmExtractElement)
      for (TypeId& t : rt)
        if (m_.types.get(t).kind == TypeKind::Vector) t = scalar(m_.types.get(t).elem);
    if (rt.size() != results_.size()) rt.assign(results_.size(), unknown_type(m_));
    p.result_types = rt;
  }
  // Regions (pto.section.cube { ... }, or the generic form's `({ ... })`)
  // are bound like any other. render() marks every region outside a region,
  // at any bracket depth, so they are searched for the same way.
  std::vector<uint32_t> braces;
  for (uint32_t i = body_b; i < body_e; ++i) {
    if (kind(i) == Tok::LBrace && region_at(i) != kNoIndex) {
      braces.push_back(i);
      i = partner(i);
    }
  }
  if (braces.size() > 255) fail(s.op, "too many regions");
  RegionId r0 = reserve_regions(unsigned(braces.size()));
  for (size_t i = 0; i < braces.size(); ++i)
    p.regions.push_back(bind_region(braces[i], {}, RegionId(r0 + i)));
  std::string body = render(body_b, body_e, true);
  p.attrs.push_back({m_.strings.intern("__body"), make_attr(AttrKind::Other, body, body)});
  emit_with_results(p, results_);
}

}  // namespace bind
}  // namespace ptoas
