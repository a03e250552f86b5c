// The toy target's lowering: every instruction as one line of text, through
// the shared driver (lowering.h). It is the smallest target there is, kept
// as the test that a target needs nothing outside its folder and one line
// of targets.def (docs/porting.md walks through it).
#include <string>

#include "codegen.h"
#include "lowering.h"
#include "ops.h"

namespace ptoas::cg::toy {

namespace {

class ToyLower : public Lowering {
 public:
  ToyLower(const Module& m, const Target& t, Diag& d, std::string& out) : Lowering(m), m_(m), t_(t), d_(d), o_(out) {}
  bool ok() const { return ok_; }
  void line(const std::string& s) { o_ += std::string(2 * depth_, ' ') + s + "\n"; }

 private:
  const Module& m_;
  const Target& t_;
  Diag& d_;
  std::string& o_;
  unsigned depth_ = 1;
  bool ok_ = true;

  std::string name(ValueId v) const {
    std::string_view n = m_.str(m_.values[v].name);
    return "%" + (n.empty() ? std::to_string(v) : std::string(n));
  }
  std::string list(const Inst& in, unsigned from, unsigned n) const {
    std::string s;
    for (unsigned i = from; i < from + n; ++i) s += (i > from ? ", " : "") + name(m_.operand(in, i));
    return s;
  }
  // `pto.tadd %a, %b -> %c  ; elementwise`: the op, its inputs, its
  // outputs (DPS) or result, and the family the driver chose.
  void op_line(const Inst& in, std::string_view family) {
    std::string s(op_info(in.op).name);
    std::string res;
    for (unsigned i = 0; i < in.n_res; ++i) res += (i ? ", " : "") + name(in.res + i);
    if (!res.empty()) s = res + " = " + s;
    if (in.n_ins) s += " " + list(in, 0, in.n_ins);
    if (in.n_outs) s += " -> " + list(in, in.n_ins, in.n_outs);
    line(s + "  ; " + std::string(family));
  }

  void mark(const Inst&) override {}
  void fail(const Inst& in, const Refusal& r) override {
    std::string w = r.what.empty() ? "op " + std::string(op_info(in.op).name) : r.what;
    d_.error(in.loc, 0, w + " is not supported on " + std::string(t_.name) + " [" +
                            std::string(refusal_code_name(r.code)) + "]");
    ok_ = false;
  }
  void copy_values(const std::vector<ValueId>& from, const std::vector<ValueId>& to) override {
    for (size_t k = 0; k < from.size() && k < to.size(); ++k) line(name(to[k]) + " = " + name(from[k]));
  }
  void lower_return(const Inst&) override { line("return"); }
  void begin_for(const Inst& in, ValueId iv) override {
    line("for " + name(iv) + " = " + name(m_.operand(in, 0)) + " to " + name(m_.operand(in, 1)) + " step " +
         name(m_.operand(in, 2)));
    ++depth_;
  }
  void end_for(const Inst&, ValueId) override { close(); }
  void begin_if(const Inst& in) override {
    line("if " + name(m_.operand(in, 0)));
    ++depth_;
  }
  void else_if(const Inst& in) override {
    --depth_;
    if (in.n_regions > 1) line("else");
    ++depth_;
  }
  void end_if(const Inst&) override { close(); }
  void begin_while(const Inst&) override {
    line("while");
    ++depth_;
  }
  void test_while(const Inst&, const Inst& cond) override { line("break unless " + name(m_.operand(cond, 0))); }
  void end_while(const Inst&) override { close(); }
  void close() {
    --depth_;
    line("end");
  }
  void scalar(const Inst& in) override { op_line(in, "scalar"); }
  void view(const Inst& in) override { op_line(in, "view"); }
  void alloc(const Inst& in, InstId) override { op_line(in, "alloc"); }
  void tcopy(const Inst& in, ValueId, ValueId, bool load) override { op_line(in, load ? "load" : "store"); }
  void row_reduce(const Inst& in) override { op_line(in, "row_reduce"); }
  void col_reduce(const Inst& in) override { op_line(in, "col_reduce"); }
  void tfillpad(const Inst& in) override { op_line(in, "fillpad"); }
  void twindow(const Inst& in) override { op_line(in, "window"); }
  void ttrans(const Inst& in) override { op_line(in, "trans"); }
  void tconcat(const Inst& in) override { op_line(in, "concat"); }
  void treshape(const Inst& in, ValueId, ValueId) override { op_line(in, "reshape"); }
  void tcmp(const Inst& in) override { op_line(in, "cmp"); }
  void tsel(const Inst& in) override { op_line(in, "sel"); }
  void fused(const Inst& in) override { op_line(in, "fused"); }
  void tcvt(const Inst& in) override { op_line(in, "cvt"); }
  void tmov(const Inst& in) override { op_line(in, "mov"); }
  void ttri(const Inst& in) override { op_line(in, "tri"); }
  void tci(const Inst& in) override { op_line(in, "ci"); }
  void matmul(const Inst& in) override { op_line(in, "matmul"); }
  void row_expand(const Inst& in) override { op_line(in, "row_expand"); }
  void col_expand(const Inst& in) override { op_line(in, "col_expand"); }
  void elementwise(const Inst& in) override { op_line(in, "elementwise"); }
};

}  // namespace

bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions&, FuncCode& out,
                      Diag& diag) {
  const Inst& f = m.inst(fn);
  out.name = std::string(m.attr_word(f, "sym_name"));
  out.text = "func @" + out.name + "\n";
  ToyLower g(m, t, diag, out.text);
  g.lower_region(m.region(f, 0));
  out.text += "end\n";
  return g.ok();
}

}  // namespace ptoas::cg::toy
