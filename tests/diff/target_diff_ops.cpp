// target_diff cases for the conversion, compare / select and move ops: tcvt
// between every pair of lane types (each rmode, sat_mode ON where the
// backend supports it, the refused combinations), tcmp / tcmps with every
// lane type, cmpMode and mask type (the mask tile stored whole) followed by
// tsel / tsels for 2- and 4-byte elements, tfillpad / tfillpad_inplace /
// tfillpad_expand with each pad value (the whole physical dst stored), and
// textract / tinsert at offsets, windows reaching the tile's edge included,
// on row- and column-major tiles and (either side) every boxed layout.
#include <algorithm>
#include <cfloat>
#include <cstring>
#include <string>
#include <vector>

#include "elem.h"
#include "target_diff_case.h"

namespace x86diff {

using namespace ptoas;

namespace {

std::string dn_of(DType d) { return std::string(dtype_name(d)); }

// func.func @k(%<name>: !pto.ptr<dt>, ..., %s: sdt) and %c0 %c1 plus the
// given index constants.
std::string head(const std::vector<std::pair<std::string, DType>>& ptrs, DType sdt,
                 const std::vector<std::pair<std::string, int64_t>>& consts) {
  std::string k = "func.func @k(";
  for (const auto& p : ptrs) k += "%" + p.first + ": !pto.ptr<" + dn_of(p.second) + ">, ";
  k += "%s: " + dn_of(sdt) + ") attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  for (const auto& c : consts) k += "  %" + c.first + " = arith.constant " + std::to_string(c.second) + " : index\n";
  return k;
}

std::string pview(DType d) { return "!pto.partition_tensor_view<?x?x" + dn_of(d) + ">"; }

std::string store(const std::string& tile, const std::string& tty, const std::string& view, DType d) {
  return "  pto.tstore ins(%" + tile + " : " + tty + ") outs(%" + view + "p : " + pview(d) + ")\n";
}

// A case whose buffer parameters are `bufs` in order, then the scalar %s.
Case make_case(const std::string& name, const std::string& text, std::vector<Buffer> bufs, DType sdt,
               uint64_t sbits, Arch arch) {
  Case c;
  c.name = name;
  c.text = text;
  c.arch = arch;
  c.bufs = std::move(bufs);
  for (size_t i = 0; i < c.bufs.size(); ++i) c.params.push_back(Param{int(i), {}});
  c.params.push_back(Param{-1, scalar_arg(sdt, sbits)});
  return c;
}

uint32_t fbits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// ---- tcvt ---------------------------------------------------------------------------

// Float inputs of the conversions (as f32; narrowed to f16 / bf16 by
// rounding): NaNs, +-Inf, +-0, subnormals, halves (the rmodes differ
// there), values just past the 8-, 16-, 32- and 64-bit ranges, extremes.
std::vector<uint64_t> cvt_float_inputs(DType d) {
  const uint32_t raw[] = {0x7fc00000u, 0xffc00000u, 0x7fa00001u, 0x7f800000u, 0xff800000u, 0x00000000u,
                          0x80000000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0xff7fffffu, 0x00800000u};
  const float vals[] = {0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 3.5f, -3.5f, 0.49999997f, -0.75f, 1.0f, -1.0f,
                        127.5f, 128.0f, -128.5f, -129.0f, 255.5f, 256.0f, -0.5f, 32767.5f, 32768.0f,
                        -32768.5f, -32769.0f, 65504.0f, 65519.0f, 65520.0f, 65535.5f, 65536.0f, 8388607.5f,
                        16777217.0f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 3e9f,
                        -3e9f, 4294967040.0f, 4294967296.0f, 9223372036854775808.0f, -9223372036854775808.0f,
                        18446744073709551616.0f, -18446744073709551616.0f, 1e20f, -1e20f, 1e-20f, 1025.5f,
                        -1026.5f, 200.25f, 44.0f, -44.75f};
  std::vector<uint64_t> v;
  auto add = [&](uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    if (d == DType::F32) v.push_back(b);
    else if (d == DType::F16) v.push_back(rt::f32_to_f16_bits(f));
    else v.push_back(rt::f32_to_bf16_bits(f));
  };
  for (uint32_t b : raw) add(b);
  for (float f : vals) add(fbits(f));
  if (d == DType::F16)  // the f16 edges: max, past the 8-bit ranges, subnormals
    for (uint64_t b : {0x7bffu, 0xfbffu, 0x0001u, 0x83ffu, 0x7e01u, 0xfc01u}) v.push_back(b);
  if (d == DType::BF16)
    for (uint64_t b : {0x7f7fu, 0xff7fu, 0x0001u, 0x807fu, 0x7fa1u, 0x4f00u, 0xcf00u, 0x4f80u}) v.push_back(b);
  return v;
}

// Integer inputs: the values around the 8-, 16-, 24- (f32 rounding) and
// 32-bit boundaries and the f16 overflow threshold, truncated to `d`.
std::vector<uint64_t> cvt_int_inputs(DType d) {
  const int64_t vals[] = {0,        1,         -1,        2,          127,        128,        -128,
                          -129,     255,       256,       32767,      32768,      -32768,     -32769,
                          65504,    65519,     65520,     65535,      65536,      -65520,     16777217,
                          16777219, -16777217, 16777216,  0x7fffffbf, 0x7fffffc0, 2147483647, -2147483648LL,
                          -2147483647, 0xffffff7fLL, 0xffffff80LL, 0xffffffffLL, 3000000000LL, 0x1000081LL};
  unsigned bits = 8 * dtype_bytes(d);
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  std::vector<uint64_t> v;
  for (int64_t x : vals) v.push_back(uint64_t(x) & mask);
  return v;
}

// Fills `b`: every special value once first, then a mix of them and samples.
void fill_with(Buffer& b, const std::vector<uint64_t>& spec) {
  size_t n = b.data.size() / dtype_bytes(b.elem);
  for (size_t i = 0; i < n; ++i)
    store_elem(b.data, b.elem, i, i < spec.size() ? spec[i] : rnd() % 3 ? spec[rnd() % spec.size()] : sample(b.elem));
}

struct CvtShape {
  const char* name;
  int rows, cols, vr, vc;  // cols: elements of the wider type's 32-byte rows are rounded up per type
  bool dn;
};

const CvtShape kCvtShapes[] = {
    {"one_row", 1, 128, 1, 100, false},
    {"ragged", 4, 64, 3, 61, false},
    {"DN", 64, 3, 61, 3, true},
};

void add_cvt(std::vector<Case>& out, DType sd, DType dd, const CvtShape& s, const std::string& attrs,
             const std::string& label, const std::string& refuse) {
  std::string sn = dn_of(sd), dn = dn_of(dd);
  int rows = s.dn ? std::max(round32(s.rows, sd), round32(s.rows, dd)) : s.rows;
  int cols = s.dn ? s.cols : std::max(round32(s.cols, sd), round32(s.cols, dd));
  size_t ld = size_t(s.dn ? s.rows + 3 : s.cols + 3), n = ld * size_t((s.dn ? s.vc : s.vr) + 1);
  std::string ti = tile_ty(rows, cols, sn, s.dn), to = tile_ty(rows, cols, dn, s.dn);
  std::string strides = s.dn ? "%c1, %ld" : "%ld, %c1";
  std::string k = head({{"a", sd}, {"c", dd}}, DType::F32, {{"R", s.vr}, {"C", s.vc}, {"ld", int64_t(ld)}});
  k += view("a", "a", "%R, %C", strides, sn) + view("c", "c", "%R, %C", strides, dn);
  k += load("a", "ta", ti, sn, "%R", "%C");
  k += "  %tc = pto.alloc_tile valid_row = %R valid_col = %C : " + to + "\n";
  k += "  pto.tcvt ins(%ta" + (attrs.empty() ? "" : " {" + attrs + "}") + " : " + ti + ") outs(%tc : " + to + ")\n";
  k += store("tc", to, "c", dd) + "  return\n}\n";
  Buffer a = make_buffer("a", sd, n, ld, false);
  fill_with(a, dtype_is_float(sd) ? cvt_float_inputs(sd) : cvt_int_inputs(sd));
  Case c = make_case("tcvt " + sn + " -> " + dn + " " + label + " " + s.name, k,
                     {a, make_buffer("c", dd, n, ld, true)}, DType::F32, 0, Arch::A3);
  if (!refuse.empty()) {
    c.expect_refused = true;
    c.refuse_word = refuse;
  }
  out.push_back(std::move(c));
}

void cvt_cases(std::vector<Case>& out) {
  const char* rmodes[] = {"RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "NONE"};
  auto rm = [](const char* m) { return std::string("rmode = #pto<round_mode ") + m + ">"; };
  const std::string sat_on = "sat_mode = #pto<sat_mode ON>";
  for (DType sd : lane_types())
    for (DType dd : lane_types()) {
      if (sd == dd) continue;
      bool sf = dtype_is_float(sd), df = dtype_is_float(dd);
      if (!sf && dd == DType::BF16 && dtype_bytes(sd) == 4) {  // refused: it would round twice
        add_cvt(out, sd, dd, kCvtShapes[1], rm("RINT"), "RINT (refused)", "bf16");
        continue;
      }
      for (const CvtShape& s : kCvtShapes) {
        if (sf && !df) {
          for (const char* m : rmodes) add_cvt(out, sd, dd, s, rm(m), m, "");
          bool sat_ok = dd == DType::I32 || dtype_bytes(dd) < 4;
          for (const char* m : {"RINT", "TRUNC", "ROUND"})
            if (sat_ok || std::strcmp(m, "RINT") == 0)
              add_cvt(out, sd, dd, s, rm(m) + ", " + sat_on, std::string(m) + " sat" + (sat_ok ? "" : " (refused)"),
                      sat_ok ? "" : "sat_mode");
        } else {
          add_cvt(out, sd, dd, s, s.dn ? "" : rm("RINT"), s.dn ? "default" : "RINT", "");
          if (!s.dn) add_cvt(out, sd, dd, s, rm("FLOOR"), "FLOOR", "");  // rmode does not apply
        }
      }
      if (sf && !df) add_cvt(out, sd, dd, kCvtShapes[1], rm("ODD"), "ODD (refused)", "ODD");
      if (sf == df || !sf) add_cvt(out, sd, dd, kCvtShapes[1], rm("RINT") + ", " + sat_on, "sat (refused)",
                                   "sat_mode");
    }
}

// ---- tcmp / tcmps, tsel / tsels ------------------------------------------------------

const char* const kCmpModes[] = {"eq", "ne", "lt", "le", "gt", "ge"};

// tcmp(s) a [, b | s] -> mask m (stored whole, rows x 32 bytes); with a
// 2- or 4-byte element type also tsel(s) m, a, b | s -> c.
void add_cmp(std::vector<Case>& out, DType d, DType md, const Shape& s, const char* mode, bool scalar,
             uint64_t sc, Arch arch) {
  std::string dt = dn_of(d), mdt = dn_of(md);
  int cols = round32(s.cols, d), mcols = 32 / int(dtype_bytes(md));
  std::string T = tile_ty(s.rows, cols, dt, false);
  std::string M = tile_ty(s.rows, mcols, mdt, false, (std::to_string(s.rows) + "x" + std::to_string(mcols)).c_str());
  bool sel = dtype_bytes(d) >= 2;
  size_t ld = size_t(s.cols + 3), n = ld * size_t(s.vr + 1), mld = size_t(mcols + 2);
  std::string k = head({{"a", d}, {"b", d}, {"c", d}, {"m", md}}, d,
                       {{"R", s.vr}, {"C", s.vc}, {"ld", int64_t(ld)}, {"MR", s.rows}, {"MC", mcols},
                        {"mld", int64_t(mld)}});
  for (const char* p : {"a", "b", "c"}) k += view(p, p, "%R, %C", "%ld, %c1", dt);
  k += view("m", "m", "%MR, %MC", "%mld, %c1", mdt);
  k += load("a", "ta", T, dt, "%R", "%C") + load("b", "tb", T, dt, "%R", "%C");
  k += "  %tm = pto.alloc_tile : " + M + "\n";
  std::string cm = std::string(" {cmpMode = #pto<cmp ") + mode + ">}";
  if (scalar) k += "  pto.tcmps ins(%ta, %s" + cm + " : " + T + ", " + dt + ") outs(%tm : " + M + ")\n";
  else k += "  pto.tcmp ins(%ta, %tb" + cm + " : " + T + ", " + T + ") outs(%tm : " + M + ")\n";
  k += store("tm", M, "m", md);
  if (sel) {
    k += load("b", "tc", T, dt, "%R", "%C");
    if (scalar) k += "  pto.tsels ins(%tm, %ta, %s : " + M + ", " + T + ", " + dt + ") outs(%tc : " + T + ")\n";
    else k += "  pto.tsel ins(%tm, %ta, %tb : " + M + ", " + T + ", " + T + ") outs(%tc : " + T + ")\n";
    k += store("tc", T, "c", d);
  }
  k += "  return\n}\n";
  std::string name = std::string(scalar ? "tcmps" : "tcmp") + (sel ? (scalar ? "+tsels " : "+tsel ") : " ") + dt +
                     " " + mode + " mask " + mdt + " " + s.name;
  if (scalar) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " s=0x%llx", (unsigned long long)sc);
    name += buf;
  }
  std::vector<Buffer> bufs = {make_buffer("a", d, n, ld, false), make_buffer("b", d, n, ld, false),
                              make_buffer("c", d, n, ld, true), make_buffer("m", md, mld * size_t(s.rows + 1), mld, true)};
  // Equal operands often: a = s, b = a (or -a: +-0 compare equal).
  for (size_t i = 0; i < n; ++i) {
    if (scalar && i % 5 == 0) store_elem(bufs[0].data, d, i, sc);
    if (i % 4 == 1) store_elem(bufs[1].data, d, i, load_elem(bufs[0].data, d, i));
  }
  Case c = make_case(name, k, std::move(bufs), d, sc, arch);
  out.push_back(std::move(c));
}

void cmp_cases(std::vector<Case>& out) {
  const Shape full{"full", 2, 64, 2, 64}, ragged{"ragged", 4, 64, 3, 61}, narrow{"width7", 3, 32, 3, 7};
  const DType masks[] = {DType::U8, DType::U16, DType::U32, DType::I32};
  for (DType d : lane_types())
    for (bool scalar : {false, true}) {
      // An arch whose op table allows d for the compare and the select.
      Arch arch, sel_arch = Arch::A3;
      if (!pick_arch(scalar ? "tcmps" : "tcmp", d, arch)) continue;
      if (dtype_bytes(d) >= 2 && !pick_arch(scalar ? "tsels" : "tsel", d, sel_arch)) continue;
      if (sel_arch == Arch::A5) arch = Arch::A5;
      std::vector<uint64_t> sc = scalars(d, false);
      for (size_t m = 0; m < 6; ++m) {
        for (DType md : masks) add_cmp(out, d, md, ragged, kCmpModes[m], scalar, sc[m % sc.size()], arch);
        add_cmp(out, d, masks[m % 4], full, kCmpModes[m], scalar, sc[(m + 1) % sc.size()], arch);
        add_cmp(out, d, masks[(m + 2) % 4], narrow, kCmpModes[m], scalar, sc[(m + 2) % sc.size()], arch);
      }
    }
}

// ---- tfillpad ------------------------------------------------------------------------

std::string pad_tile(int r, int c, const std::string& dt, int pad, bool dyn) {
  return "!pto.tile_buf<vec, " + std::to_string(r) + "x" + std::to_string(c) + "x" + dt +
         (dyn ? ", valid=?x?" : "") + ", pad=" + std::to_string(pad) + ">";
}

// tfillpad(_expand): a (valid R x C) -> dst with pad `pad` (expand: two
// more rows and 32 more bytes a row), the whole dst stored to c;
// _inplace: the loaded tile itself, widened back with set_validshape.
void add_fillpad(std::vector<Case>& out, const char* op, DType d, const Shape& s, int pad, Arch arch) {
  std::string dt = dn_of(d);
  bool expand = !std::strcmp(op, "tfillpad_expand"), inplace = !std::strcmp(op, "tfillpad_inplace");
  int cols = round32(std::max(s.cols, 2), d);
  int dr = expand ? s.rows + 2 : s.rows, dc = expand ? cols + 32 / int(dtype_bytes(d)) : cols;
  size_t ld = size_t(dc + 3), n = ld * size_t(dr + 1);
  std::string S = inplace ? pad_tile(s.rows, cols, dt, pad, true) : tile_ty(s.rows, cols, dt, false);
  std::string D = pad_tile(dr, dc, dt, pad, false);
  std::string k = head({{"a", d}, {"c", d}}, DType::F32,
                       {{"R", s.vr}, {"C", s.vc}, {"ld", int64_t(ld)}, {"DR", dr}, {"DC", dc}});
  k += view("a", "a", "%R, %C", "%ld, %c1", dt) + view("c", "c", "%DR, %DC", "%ld, %c1", dt);
  k += load("a", "ta", S, dt, "%R", "%C");
  if (inplace) {
    k += "  pto." + std::string(op) + " ins(%ta : " + S + ") outs(%ta : " + S + ")\n";
    k += "  pto.set_validshape %ta, %DR, %DC : " + S + "\n";
    k += store("ta", S, "c", d);
  } else {
    k += "  %td = pto.alloc_tile : " + D + "\n";
    k += "  pto." + std::string(op) + " ins(%ta : " + S + ") outs(%td : " + D + ")\n";
    k += store("td", D, "c", d);
  }
  k += "  return\n}\n";
  Case c = make_case(std::string(op) + " " + dt + " pad=" + std::to_string(pad) + " " + s.name, k,
                     {make_buffer("a", d, n, ld, false), make_buffer("c", d, n, ld, true)}, DType::F32, 0, arch);
  out.push_back(std::move(c));
}

void fillpad_cases(std::vector<Case>& out) {
  const Shape sh[] = {{"ragged", 4, 64, 3, 61}, {"full", 2, 32, 2, 32}, {"single", 3, 8, 1, 1},
                      {"one_col", 5, 16, 5, 1}};
  for (const char* op : {"tfillpad", "tfillpad_inplace", "tfillpad_expand"})
    for (DType d : lane_types()) {
      Arch arch;
      if (!pick_arch(op, d, arch)) continue;
      for (const Shape& s : sh)
        for (int pad = 1; pad < 4; ++pad) add_fillpad(out, op, d, s, pad, arch);  // pad 0 (null) is refused
    }
}

// ---- textract / tinsert ---------------------------------------------------------------

// textract: the big tile (from a) -> a small tile loaded whole from c,
// narrowed to vr x vc for the op and widened again to store it whole;
// tinsert: the small tile (from a, valid vr x vc) -> the big tile loaded
// whole from c, stored whole. Offsets (ro, co); dn: column-major tiles.
void add_window(std::vector<Case>& out, bool extract, DType d, bool dn, int ro, int co, int vr, int vc,
                const std::string& label, Arch arch) {
  std::string dt = dn_of(d);
  // Big: 8 x 48 ND (48 x 8 DN), small 4 x 16 (16 x 4), element counts of
  // 32-byte rows (columns).
  int br = dn ? round32(48, d) : 8, bc = dn ? 8 : round32(48, d);
  int sr = dn ? round32(16, d) : 4, sc = dn ? 4 : round32(16, d);
  std::string B = tile_ty(br, bc, dt, dn), S = tile_ty(sr, sc, dt, dn);
  std::string strides = dn ? "%c1, %ld" : "%ld, %c1";
  int outer = dn ? bc : br;
  size_t ld = size_t((dn ? br : bc) + 3), n = ld * size_t(outer + 1);
  std::string k = head({{"a", d}, {"c", d}}, DType::F32,
                       {{"ld", int64_t(ld)}, {"BR", br}, {"BC", bc}, {"SR", sr}, {"SC", sc}, {"VR", vr},
                        {"VC", vc}, {"ro", ro}, {"co", co}});
  if (extract) {
    k += view("a", "a", "%BR, %BC", strides, dt) + view("c", "c", "%SR, %SC", strides, dt);
    k += load("a", "tb", B, dt, "%BR", "%BC") + load("c", "ts", S, dt, "%SR", "%SC");
    k += "  pto.set_validshape %ts, %VR, %VC : " + S + "\n";
    k += "  pto.textract ins(%tb, %ro, %co : " + B + ", index, index) outs(%ts : " + S + ")\n";
    k += "  pto.set_validshape %ts, %SR, %SC : " + S + "\n";
    k += store("ts", S, "c", d);
  } else {
    k += view("a", "a", "%VR, %VC", strides, dt) + view("c", "c", "%BR, %BC", strides, dt);
    k += load("a", "ts", S, dt, "%VR", "%VC") + load("c", "tb", B, dt, "%BR", "%BC");
    k += "  pto.tinsert ins(%ts, %ro, %co : " + S + ", index, index) outs(%tb : " + B + ")\n";
    k += store("tb", B, "c", d);
  }
  k += "  return\n}\n";
  Buffer a = make_buffer("a", d, n, ld, false), c = make_buffer("c", d, n, ld, true);
  for (size_t i = 0; i < n; ++i) store_elem(c.data, d, i, sample(d));  // the tile's old contents
  Case cs = make_case(std::string(extract ? "textract " : "tinsert ") + dt + (dn ? " DN " : " ") + label + " at (" +
                          std::to_string(ro) + ", " + std::to_string(co) + ") " + std::to_string(vr) + "x" +
                          std::to_string(vc),
                      k, {a, c}, DType::F32, 0, arch);
  out.push_back(std::move(cs));
}

void window_cases(std::vector<Case>& out) {
  for (bool extract : {true, false})
    for (DType d : lane_types()) {
      Arch arch;
      if (!pick_arch(extract ? "textract" : "tinsert", d, arch)) continue;
      // vec -> vec tinsert: A2/A3 takes i8 / f16 / bf16 / f32 tiles of any
      // layout, A5 also i32 but only ND to ND (or NZ to NZ).
      bool a3_insert = d == DType::I8 || d == DType::F16 || d == DType::BF16 || d == DType::F32;
      if (!extract && !a3_insert && d != DType::I32) continue;
      if (!extract) arch = a3_insert ? Arch::A3 : Arch::A5;
      for (bool dn : {false, true}) {
        if (!extract && dn && arch == Arch::A5) continue;
        int br = dn ? round32(48, d) : 8, bc = dn ? 8 : round32(48, d);
        int sr = dn ? round32(16, d) : 4, sc = dn ? 4 : round32(16, d);
        add_window(out, extract, d, dn, 0, 0, sr, sc, "origin", arch);
        add_window(out, extract, d, dn, 1, 3, sr - 1, sc - 3, "inside", arch);
        add_window(out, extract, d, dn, br - sr, bc - sc, sr, sc, "corner", arch);
        int vc = std::min(5, sc - 1);
        add_window(out, extract, d, dn, br - 3, bc - vc, 3, vc, "edge ragged", arch);
        add_window(out, extract, d, dn, 2, bc - 1, 2, 1, "last column", arch);
        add_window(out, extract, d, dn, br - 1, 0, 1, sc, "last row", arch);
      }
    }
}

// ---- textract / tinsert on boxed tiles ----------------------------------------------

struct WinLayout {
  const char* name;
  const char* attrs;
};
const WinLayout kWinLayouts[] = {{"nd", "blayout=row_major, slayout=none_box"},
                                 {"dn", "blayout=col_major, slayout=none_box"},
                                 {"nz", "blayout=col_major, slayout=row_major"},
                                 {"zn", "blayout=row_major, slayout=col_major"},
                                 {"zz", "blayout=row_major, slayout=row_major"},
                                 {"nn", "blayout=col_major, slayout=col_major"},
                                 {"nz1024", "blayout=col_major, slayout=row_major, fractal=1024"},
                                 {"zn32", "blayout=row_major, slayout=col_major, fractal=32"}};

// The big tile (BR x BC, layout `big`) and the small one (SR x SC, layout
// `small`), at least one boxed, both vec tiles on a3 (the official
// verifier takes vec -> vec windows of any layout there; mat -> mat
// textract and vec -> mat tinsert of these layouts it refuses):
// textract big -> small, the small tile loaded whole from c first,
// narrowed to vr x vc for the op and stored whole; tinsert small (loaded
// with vr x vc valid) -> big (loaded whole from c, stored whole). Rows
// and columns are passed through row-major views whatever the tiles'
// layouts.
void add_boxed_window(std::vector<Case>& out, bool extract, DType d, const WinLayout& big, const WinLayout& small,
                      int ro, int co, int vr, int vc) {
  std::string dt = dn_of(d);
  const int BR = 32, BC = 64, SR = 16, SC = 32;
  auto tty = [&](const char* loc, int r, int c, const WinLayout& l, const std::string& t) {
    return "!pto.tile_buf<" + std::string(loc) + ", " + std::to_string(r) + "x" + std::to_string(c) + "x" + t +
           ", valid=?x?, " + l.attrs + ">";
  };
  std::string B = tty("vec", BR, BC, big, dt), S = tty("vec", SR, SC, small, dt);
  size_t ld = size_t(BC + 3), n = ld * size_t(BR + 1);
  std::string k = head({{"a", d}, {"c", d}}, DType::F32,
                       {{"ld", int64_t(ld)}, {"BR", BR}, {"BC", BC}, {"SR", SR}, {"SC", SC}, {"VR", vr},
                        {"VC", vc}, {"ro", ro}, {"co", co}});
  if (extract) {
    k += view("a", "a", "%BR, %BC", "%ld, %c1", dt) + view("c", "c", "%SR, %SC", "%ld, %c1", dt);
    k += load("a", "tb", B, dt, "%BR", "%BC") + load("c", "ts", S, dt, "%SR", "%SC");
    k += "  pto.set_validshape %ts, %VR, %VC : " + S + "\n";
    k += "  pto.textract ins(%tb, %ro, %co : " + B + ", index, index) outs(%ts : " + S + ")\n";
    k += "  pto.set_validshape %ts, %SR, %SC : " + S + "\n";
    k += store("ts", S, "c", d);
  } else {
    k += view("a", "a", "%VR, %VC", "%ld, %c1", dt) + view("c", "c", "%BR, %BC", "%ld, %c1", dt);
    k += load("a", "ts", S, dt, "%VR", "%VC") + load("c", "tb", B, dt, "%BR", "%BC");
    k += "  pto.tinsert ins(%ts, %ro, %co : " + S + ", index, index) outs(%tb : " + B + ")\n";
    k += store("tb", B, "c", d);
  }
  k += "  return\n}\n";
  Buffer a = make_buffer("a", d, n, ld, false), c = make_buffer("c", d, n, ld, true);
  for (size_t i = 0; i < n; ++i) store_elem(c.data, d, i, sample(d));  // the tile's old contents
  std::string name = std::string(extract ? "textract " : "tinsert ") + dt + " " +
                     big.name + (extract ? "->" : "<-") + small.name + " at (" + std::to_string(ro) + ", " + std::to_string(co) + ") " +
                     std::to_string(vr) + "x" + std::to_string(vc);
  out.push_back(make_case(name, k, {a, c}, DType::F32, 0, Arch::A3));
}

// Every boxed layout against every layout, 4-, 2- and 1-byte elements, at
// the origin, on box boundaries, off them with a ragged valid region, and
// at the far corner.
void boxed_window_cases(std::vector<Case>& out) {
  const size_t nl = sizeof kWinLayouts / sizeof kWinLayouts[0];
  unsigned pick = 0;
  for (bool extract : {true, false})
    for (DType d : {DType::F32, DType::F16, DType::I8})
      for (size_t bi = 0; bi < nl; ++bi)
        for (size_t si = 0; si < nl; ++si) {
          bool boxed_b = bi >= 2, boxed_s = si >= 2;
          // (A column-major 16-row tile of i8 is not 32 bytes tall.)
          if ((!boxed_b && !boxed_s) || (d == DType::I8 && si == 1)) continue;
          const WinLayout &b = kWinLayouts[bi], &s = kWinLayouts[si];
          // Each pair: the origin whole, and one of the other windows in turn.
          add_boxed_window(out, extract, d, b, s, 0, 0, 16, 32);
          switch (pick++ % 4) {
            case 0: add_boxed_window(out, extract, d, b, s, 16, 32, 16, 32); break;
            case 1: add_boxed_window(out, extract, d, b, s, 3, 5, 13, 27); break;
            case 2: add_boxed_window(out, extract, d, b, s, 17, 33, 15, 31); break;
            default: add_boxed_window(out, extract, d, b, s, 9, 1, 7, 30); break;
          }
        }
  // Converting vec windows (only an f32 acc source converts) are refused
  // by the front end (tests/golden/ir/textract_rules, tile_move_rules).
}

}  // namespace

void ops_cases(std::vector<Case>& out) {
  cvt_cases(out);
  cmp_cases(out);
  fillpad_cases(out);
  window_cases(out);
  boxed_window_cases(out);
}

}  // namespace x86diff
