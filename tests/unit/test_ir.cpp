// The IR (asm/ir.h): record sizes, the invariants every bound module keeps
// (ids inside their pools, regions inside the pools, every used value
// defined and visible), and the diagnostics the front end reports (line,
// column, source line, caret, the 20-error cap).
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "ir.h"
#include "token.h"

using namespace ptoas;

TEST_CASE("ir: record sizes", "[ir]") {
  CHECK(sizeof(Inst) == 32);
  CHECK(sizeof(Value) == 16);
  CHECK(sizeof(Token) == 12);
}

namespace {

const std::string T = "!pto.tile_buf<vec, 16x16xf32>";

// A kernel touching every structural feature: nested regions, block args,
// results groups, opaque ops with regions, implicit constants, SSA results.
const std::string kKernel = R"(module attributes {pto.target_arch = "a3"} {
  func.func @helper(%x: index) {
    return
  }
  func.func @k(%p: !pto.ptr<f32>, %n: index, %s: f32) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tv = pto.make_tensor_view %p, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    pto.tload ins(%pv : !pto.partition_tensor_view<16x16xf32>) outs(%a : !pto.tile_buf<vec, 16x16xf32>)
    %b = tadds %a, %s : !pto.tile<16x16xf32>
    tmuls %b, %b, 0x3F800000 : !pto.tile<16x16xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %t = arith.addi %acc, %i : index
      %cnd = arith.cmpi slt, %t, %n : index
      %r = scf.if %cnd -> (index) {
        scf.yield %t : index
      } else {
        scf.yield %acc : index
      }
      scf.yield %r : index
    }
    %true = arith.constant true
    %w:2 = scf.while (%x = %c0, %alive = %true) : (index, i1) -> (index, i1) {
      %lt = arith.cmpi slt, %x, %sum : index
      scf.condition(%lt) %x, %alive : index, i1
    } do {
    ^bb0(%x2: index, %a2: i1):
      %x3 = arith.addi %x2, %c1 : index
      scf.yield %x3, %a2 : index, i1
    }
    pto.section.vector {
      pto.barrier <PIPE_ALL>
    }
    pto.tstore ins(%b : !pto.tile_buf<vec, 16x16xf32>) outs(%pv : !pto.partition_tensor_view<16x16xf32>)
    return
  }
}
)";

struct Bound {
  SourceFile src;
  Module m;
  bool ok = false;
  std::string diags;
  explicit Bound(const std::string& text, FrontendOptions o = {}) : src("t.pto", text) {
    Diag d(&src);
    ok = run_frontend(src, o, m, d);
    diags = d.text();
  }
};

// Checks the structural invariants of `m`; returns the number of instructions
// reached from the module body.
size_t check_invariants(const Module& m) {
  const size_t nv = m.values.size();
  REQUIRE(m.body != kNone);
  REQUIRE(m.body < m.regions.size());
  for (const Region& r : m.regions) {
    CHECK(size_t(r.inst_begin) + r.inst_count <= m.region_insts.size());
    CHECK(size_t(r.arg_begin) + r.arg_count <= m.region_args.size());
    for (uint32_t i = 0; i < r.inst_count; ++i) CHECK(m.region_insts[r.inst_begin + i] < m.insts.size());
    for (uint32_t i = 0; i < r.arg_count; ++i) CHECK(m.region_args[r.arg_begin + i] < nv);
  }
  for (InstId id = 0; id < m.insts.size(); ++id) {
    const Inst& in = m.insts[id];
    INFO("instruction " << id << " (" << op_name(in.op) << ")");
    CHECK(in.op < Op::Count);
    CHECK((in.n_regions == 0 || size_t(in.region) + in.n_regions <= m.regions.size()));
    CHECK((in.n_attrs == 0 || size_t(in.attrs) + in.n_attrs <= m.attrs.size()));
    for (uint32_t a = 0; a < in.n_attrs; ++a) CHECK(m.attrs[in.attrs + a].value < m.attr_values.size());
    if (op_info(in.op).syn != Syn::Func) {
      CHECK((size_t(in.opnd) + in.n_ins + in.n_outs <= m.operands.size() ||
             in.n_ins + in.n_outs == 0));
      for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) CHECK(m.operand(in, i) < nv);
    } else {
      CHECK((size_t(in.opnd) + in.n_outs <= m.type_lists.size() || in.n_outs == 0));
    }
    for (unsigned r = 0; r < in.n_res; ++r) {
      REQUIRE(in.res + r < nv);
      CHECK(m.values[in.res + r].def == id);
    }
  }
  for (ValueId v = 0; v < nv; ++v) {
    CHECK(m.values[v].type != kNone);
    CHECK((m.values[v].def == kNone || m.values[v].def < m.insts.size()));
  }

  // Walk from the body: every operand must be defined before its use in an
  // enclosing scope (a dominating instruction's result or a visible block arg).
  std::vector<char> visible(nv, 0);
  size_t reached = 0;
  std::function<void(const Region&)> walk = [&](const Region& r) {
    std::vector<ValueId> added;
    for (uint32_t i = 0; i < r.arg_count; ++i) {
      ValueId a = m.region_arg(r, i);
      CHECK(m.values[a].def == kNone);
      visible[a] = 1;
      added.push_back(a);
    }
    for (uint32_t k = 0; k < r.inst_count; ++k) {
      const Inst& in = m.inst(m.region_inst(r, k));
      ++reached;
      if (op_info(in.op).syn != Syn::Func) {
        for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
          ValueId v = m.operand(in, i);
          INFO(op_name(in.op) << " operand " << i << " = %" << m.str(m.values[v].name));
          CHECK(visible[v]);
        }
      }
      for (unsigned j = 0; j < in.n_regions; ++j) walk(m.region(in, j));
      for (unsigned j = 0; j < in.n_res; ++j) {
        visible[in.res + j] = 1;
        added.push_back(in.res + j);
      }
    }
    for (ValueId v : added) visible[v] = 0;
  };
  walk(m.regions[m.body]);
  return reached;
}

}  // namespace

TEST_CASE("ir: invariants after binding a kernel with every structure", "[ir]") {
  Bound b(kKernel);
  INFO(b.diags);
  REQUIRE(b.ok);
  size_t reached = check_invariants(b.m);
  CHECK(reached == b.m.insts.size());  // no orphan instructions
  CHECK(b.m.arch == Arch::A3);
  CHECK(b.m.src == &b.src);
  CHECK(b.m.bytes() > 0);
}

TEST_CASE("ir: layouts of the structural instructions", "[ir]") {
  Bound b(kKernel);
  REQUIRE(b.ok);
  const Module& m = b.m;
  const Region& body = m.regions[m.body];
  REQUIRE(body.inst_count == 2);
  const Inst& k = m.inst(m.region_inst(body, 1));
  CHECK(k.op == lookup_op("func.func"));
  REQUIRE(k.n_regions == 1);
  const Region& kb = m.region(k, 0);
  REQUIRE(kb.arg_count == 3);
  CHECK(m.str(m.values[m.region_arg(kb, 0)].name) == "p");
  CHECK(m.type_of(m.region_arg(kb, 0)).kind == TypeKind::Ptr);
  CHECK(m.type_of(m.region_arg(kb, 1)).elem == DType::Index);
  CHECK(m.type_of(m.region_arg(kb, 2)).elem == DType::F32);
  CHECK(m.find_attr(k, "pto.entry") != nullptr);
  const Attr* sym = m.find_attr(k, "sym_name");
  REQUIRE(sym != nullptr);
  CHECK(sym->kind == AttrKind::Symbol);

  bool saw_for = false, saw_while = false, saw_if = false, saw_tadds = false, saw_opaque = false;
  for (const Inst& in : m.insts) {
    if (in.op == lookup_op("scf.for")) {
      saw_for = true;
      CHECK(in.n_ins == 4);  // lb, ub, step, one init
      CHECK(in.n_res == 1);
      REQUIRE(in.n_regions == 1);
      CHECK(m.region(in, 0).arg_count == 2);  // iv, acc
    } else if (in.op == lookup_op("scf.while")) {
      saw_while = true;
      CHECK(in.n_ins == 2);
      CHECK(in.n_res == 2);
      REQUIRE(in.n_regions == 2);
      CHECK(m.region(in, 0).arg_count == 2);
      CHECK(m.region(in, 1).arg_count == 2);
      CHECK(m.str(m.region(in, 1).label) == "^bb0");
    } else if (in.op == lookup_op("scf.if")) {
      saw_if = true;
      CHECK(in.n_ins == 1);
      CHECK(in.n_regions == 2);
      CHECK((in.flags & kInstElse) != 0);
    } else if (in.op == lookup_op("pto.tadds")) {
      saw_tadds = true;
      CHECK(in.n_ins == 2);
      CHECK(in.n_outs == 1);
      CHECK(in.n_res == 0);
      const Type& t = m.type_of(m.operand(in, 2));
      CHECK(t.kind == TypeKind::TileBuf);
      CHECK(t.loc == Loc::Vec);
      CHECK(t.elem == DType::F32);
      CHECK(t.rows == 16);
      CHECK(t.cols == 16);
      CHECK(m.types.text(m.values[m.operand(in, 2)].type) == T);
    } else if (in.op == lookup_op("pto.tmuls")) {
      CHECK(in.form == Form::Asm);  // `tmuls %b, %b, 0x3F800000`
      CHECK(in.n_ins == 2);
      CHECK(in.n_outs == 1);
    } else if (in.op == lookup_op("pto.tload")) {
      CHECK(in.form == Form::Dps);
    } else if (in.op == lookup_op("pto.section.vector")) {
      saw_opaque = true;
      CHECK(in.n_regions == 1);
      CHECK(m.find_attr(in, "__body") != nullptr);
    }
  }
  CHECK(saw_for);
  CHECK(saw_while);
  CHECK(saw_if);
  CHECK(saw_tadds);
  CHECK(saw_opaque);
}

TEST_CASE("ir: interning", "[ir]") {
  Module m;
  StrId a = m.strings.intern("abc");
  CHECK(m.strings.intern("abc") == a);
  CHECK(m.strings.intern("abd") != a);
  CHECK(m.str(a) == "abc");
  TypeId f1 = m.types.scalar(DType::F32);
  CHECK(m.types.scalar(DType::F32) == f1);
  CHECK(m.types.scalar(DType::F16) != f1);
  CHECK(m.types.text(f1) == "f32");
  // Two spellings of one tile type intern to one id.
  Bound b("func.func @k() {\n"
          "  %a = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>\n"
          "  %b = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, "
          "v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>\n"
          "  return\n}\n");
  INFO(b.diags);
  REQUIRE(b.ok);
  std::vector<TypeId> tiles;
  for (const Value& v : b.m.values)
    if (b.m.types.get(v.type).kind == TypeKind::TileBuf) tiles.push_back(v.type);
  REQUIRE(tiles.size() == 2);
  CHECK(tiles[0] == tiles[1]);
}

TEST_CASE("ir: invariants hold on every accepted corpus file", "[ir][corpus]") {
  std::string dir = std::string(PTOAS_SOURCE_DIR) + "/../shared/corpus/ptoas";
  std::ifstream manifest(dir + "/MANIFEST.tsv");
  if (!manifest) {
    WARN("corpus not present; skipped");
    return;
  }
  std::string line;
  int n = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string path, expect, flags;
    std::getline(in, path, '\t');
    std::getline(in, expect, '\t');
    std::getline(in, flags, '\t');
    if (expect != "accept") continue;
    FrontendOptions o;
    if (flags.find("--pto-arch=a5") != std::string::npos) { o.arch_from_cli = true; o.arch = Arch::A5; }
    if (flags.find("--pto-arch=a3") != std::string::npos) { o.arch_from_cli = true; o.arch = Arch::A3; }
    if (flags.find("level3") != std::string::npos) o.level = Level::Level3;
    if (flags.find("--enable-insert-sync") != std::string::npos) o.enable_insert_sync = true;
    std::ifstream f(dir + "/" + path, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    Bound b(ss.str(), o);
    INFO(path << "\n" << b.diags);
    CHECK(b.ok);
    if (!b.ok) continue;
    check_invariants(b.m);
    ++n;
  }
  CHECK(n > 100);
}

// ---- diagnostics -----------------------------------------------------------------

namespace {

std::string diags_of(const std::string& text) {
  SourceFile src("t.pto", text);
  Diag d(&src);
  Module m;
  bool ok = run_frontend(src, FrontendOptions{}, m, d);
  CHECK_FALSE(ok);
  CHECK(d.error_count() > 0);
  return d.text();
}

}  // namespace

TEST_CASE("diag: line and column and source line and caret", "[ir][diag]") {
  // Undefined value: caret under the use, '~' over the rest of the name.
  std::string t1 = "module {\n  func.func @k() {\n    %v = arith.addi %u, %u : index\n"
                   "    return\n  }\n}\n";
  CHECK(diags_of(t1) ==
        "t.pto:3:21: error: use of undefined value '%u'\n"
        "      %v = arith.addi %u, %u : index\n"
        "                      ^~\n");
  // Unexpected character at the start of a line.
  std::string t2 = "module {\n$\n}\n";
  CHECK(diags_of(t2) == "t.pto:2:1: error: unexpected character '$'\n  $\n  ^\n");
  // A tab before the error stays a tab in the caret line.
  std::string t3 = "module {\n\t\t@\n}\n";
  CHECK(diags_of(t3) == "t.pto:2:3: error: unexpected character '@'\n  \t\t@\n  \t\t^\n");
  // An error at the end of the file: the caret sits past the last character.
  std::string t4 = "module {";
  std::string d4 = diags_of(t4);
  CHECK(d4.rfind("t.pto:1:8: error: this brace is never closed", 0) == 0);
  CHECK(d4.find("\n  module {\n         ^\n") != std::string::npos);
}

TEST_CASE("diag: rendering details", "[ir][diag]") {
  SourceFile src("f.pto", "abc\r\ndef\n\nxyz");
  CHECK(src.line_col(0).line == 1);
  CHECK(src.line_col(0).col == 1);
  CHECK(src.line_col(5).line == 2);
  CHECK(src.line_col(5).col == 1);
  CHECK(src.line_col(10).line == 4);
  CHECK(src.line_col(12).col == 3);
  CHECK(src.line_text(1) == "abc");  // CR stripped
  CHECK(src.line_text(3) == "");
  CHECK(src.line_text(4) == "xyz");
  CHECK(src.line_text(5) == "");
  // Offsets past the end clamp to the end.
  CHECK(src.line_col(1000).line == 4);

  Diag d(&src);
  d.error(5, 3, "three");
  d.note(0, 1, "see here");
  d.error(11, 100, "long span is clipped to the line");
  d.error_global("global");
  CHECK(d.error_count() == 3);
  CHECK(d.text() ==
        "f.pto:2:1: error: three\n  def\n  ^~~\n"
        "f.pto:1:1: note: see here\n  abc\n  ^\n"
        "f.pto:4:2: error: long span is clipped to the line\n  xyz\n   ^~\n"
        "ptoas: error: global\n");
  // Control bytes are shown escaped (never raw) and the caret stays aligned
  // under what they show.
  SourceFile ctl("c.pto", std::string("a\x01\x02z", 4));
  Diag dc(&ctl);
  dc.error(3, 1, "x");
  CHECK(dc.text() == "c.pto:1:4: error: x\n  a\\x01\\x02z\n           ^\n");
  // Columns count UTF-8 characters; invalid bytes are \xNN; a message stays
  // on one line (a newline in it is \n).
  SourceFile u8("u.pto", "\xc3\xa9\xff z");
  Diag du(&u8);
  du.error(4, 1, "bad 'a\nb'");
  CHECK(du.text() == "u.pto:1:4: error: bad 'a\\nb'\n  \xc3\xa9\\xFF z\n        ^\n");
  // No source: the global form.
  Diag dn(nullptr);
  dn.error(0, 0, "no file");
  CHECK(dn.text() == "ptoas: error: no file\n");
}

TEST_CASE("diag: long lines, long tokens and long messages are clipped", "[ir][diag]") {
  // An error 5000 characters into a 10000-character line: a window around
  // the caret, '...' on both sides, the caret under the token.
  std::string line(5000, 'a');
  line += "TOKEN";
  line += std::string(5000, 'b');
  SourceFile src("l.pto", line);
  Diag d(&src);
  d.error(5000, 5, "e " + quoted(line));
  std::string t = d.text();
  CHECK(t.size() < 500);
  CHECK(t.rfind("l.pto:1:5001: error: e 'aaaa", 0) == 0);
  CHECK(t.find("aaa...'") != std::string::npos);  // the quote is a short prefix
  size_t l2 = t.find('\n') + 1, l3 = t.find('\n', l2) + 1;
  std::string shown = t.substr(l2, l3 - l2), caret = t.substr(l3);
  CHECK(shown.rfind("  ...", 0) == 0);
  CHECK(shown.find("b...\n") != std::string::npos);
  CHECK(shown.find("TOKEN") == caret.find('^'));
  CHECK(caret.find("^~~~~\n") != std::string::npos);
  CHECK(quoted(std::string(1000, 'x')).size() == kMaxQuoted + 5);
  CHECK(quoted(std::string("\0\n\x80", 3)) == "'\\x00\\n\\x80'");
}

TEST_CASE("diag: 30 independent errors report 20 and a note", "[ir][diag]") {
  std::string text = "module {\n  func.func @k() {\n";
  for (int i = 1; i <= 30; ++i)
    text += "    %v" + std::to_string(i) + " = arith.addi %u" + std::to_string(i) + ", %c : index\n";
  text += "    return\n  }\n}\n";
  SourceFile src("t.pto", text);
  Diag d(&src);
  Module m;
  CHECK_FALSE(run_frontend(src, FrontendOptions{}, m, d));
  const std::string& out = d.text();
  size_t n = 0;
  for (size_t p = out.find(": error: "); p != std::string::npos; p = out.find(": error: ", p + 1)) ++n;
  CHECK(n == 20);
  CHECK(out.find("t.pto:3:") != std::string::npos);   // the first
  CHECK(out.find("t.pto:22:") != std::string::npos);  // the twentieth
  CHECK(out.find("t.pto:23:") == std::string::npos);  // not the 21st
  CHECK(out.find("'%u1'") != std::string::npos);
  CHECK(out.find("'%u20'") != std::string::npos);
  CHECK(out.find("'%u21'") == std::string::npos);
  // The note comes last, once.
  const std::string note = "ptoas: note: too many errors; stopping after 20\n";
  REQUIRE(out.size() >= note.size());
  CHECK(out.substr(out.size() - note.size()) == note);
  CHECK(out.find(note) == out.size() - note.size());
  CHECK(d.too_many());
}

TEST_CASE("diag: several errors of different kinds in one run", "[ir][diag]") {
  std::string text = "module {\n  func.func @k() {\n"
                     "    %a = arith.addi %x, %x : index\n"
                     "    %b = arith.constant 1 : index\n"
                     "    %b = arith.constant 2 : index\n"
                     "    %t = pto.alloc_tile : !pto.nope<1>\n"
                     "    return\n  }\n}\n";
  std::string out = diags_of(text);
  CHECK(out.find("t.pto:3:") != std::string::npos);
  CHECK(out.find("t.pto:5:") != std::string::npos);
  CHECK(out.find("t.pto:6:") != std::string::npos);
}
