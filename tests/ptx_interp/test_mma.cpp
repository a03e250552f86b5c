// mma.sync and ldmatrix against an independent host computation.
//
// The fragments travel through memory: the kernel gathers each lane's
// fragment elements through index tables that the host fills from the
// ISA's fragment tables (written out here, separately from the
// interpreter), runs the mma, and scatters D by the accumulator table. The
// host compares D with a plain matrix multiply of the same A, B and C. A
// table with a wrong layout (the mutant) must make the comparison fail.
// ldmatrix is checked lane by lane against its ISA table, and together
// with mma in the usual GEMM pairing (ldmatrix.x4 for A, .x2.trans for B).
#include <functional>
#include <random>

#include "fref.h"
#include "harness.h"

using namespace ptxt;

namespace {

struct Form {
  const char* name;  // the mma instruction
  int K;
  const char* atype;  // element type of A and B
  int na, nb;         // registers
  int per;            // elements per register
  int es;             // element bytes
  bool integer;
};

// Position (row, col) of element i of lane `lane`'s A fragment, as the
// ISA's "Matrix Fragments for mma.m16n8kK" sections give them.
std::pair<int, int> isa_a(const Form& f, int lane, int i) {
  int group = lane >> 2, tig = lane % 4;
  std::string t = f.atype;
  if (t == "f16" || t == "bf16") {
    if (f.K == 16) {
      int row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
      int col = i < 4 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
      return {row, col};
    }
    return {i < 2 ? group : group + 8, tig * 2 + (i & 1)};  // k8
  }
  if (t == "tf32") return {(i == 0 || i == 2) ? group : group + 8, i < 2 ? tig : tig + 4};
  // s8 / u8
  if (f.K == 32) {
    int row = (i < 4 || (i >= 8 && i < 12)) ? group : group + 8;
    int col = i < 8 ? tig * 4 + (i & 3) : tig * 4 + (i & 3) + 16;
    return {row, col};
  }
  return {i < 4 ? group : group + 8, tig * 4 + (i & 3)};  // k16
}

std::pair<int, int> isa_b(const Form& f, int lane, int i) {
  int group = lane >> 2, tig = lane % 4;
  std::string t = f.atype;
  if (t == "f16" || t == "bf16") {
    if (f.K == 16) return {i < 2 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8, group};
    return {tig * 2 + i, group};
  }
  if (t == "tf32") return {i == 0 ? tig : tig + 4, group};
  if (f.K == 32) return {i < 4 ? tig * 4 + (i & 3) : tig * 4 + (i & 3) + 16, group};
  return {tig * 4 + i, group};
}

std::pair<int, int> isa_c(int lane, int i) {
  int group = lane >> 2, tig = lane % 4;
  return {i < 2 ? group : group + 8, tig * 2 + (i & 1)};
}

// The kernel: gather A, B, C through the index tables, mma, scatter D.
std::string mma_kernel(const Form& f) {
  std::string s = R"(
  .reg .b32 %ix, %e<4>, %lane, %t;
  .reg .b16 %h<2>;
  .reg .b32 %a<4>, %b<2>, %c<4>, %d<4>;
  .reg .b64 %rd<16>, %off;
  ld.param.u64 %rd1, [pA];
  ld.param.u64 %rd2, [pB];
  ld.param.u64 %rd3, [pC];
  ld.param.u64 %rd4, [pD];
  ld.param.u64 %rd5, [pIA];
  ld.param.u64 %rd6, [pIB];
  ld.param.u64 %rd7, [pIC];
  mov.u32 %lane, %laneid;
)";
  auto gather = [&](const char* base, const char* table, int nelem, int reg0, const std::string& dst, int per, int es) {
    for (int r = 0; r < nelem / per; ++r) {
      for (int h = 0; h < per; ++h) {
        int i = r * per + h;
        s += "  mad.lo.u32 %t, %lane, " + std::to_string(nelem) + ", " + std::to_string(i) + ";\n";
        s += "  mul.wide.u32 %off, %t, 4;\n  add.s64 %rd8, " + std::string(table) + ", %off;\n";
        s += "  ld.global.u32 %ix, [%rd8];\n";
        s += "  mul.wide.u32 %off, %ix, " + std::to_string(es) + ";\n  add.s64 %rd9, " + base + ", %off;\n";
        if (es == 4) s += "  ld.global.b32 " + dst + std::to_string(r + reg0) + ", [%rd9];\n";
        else if (es == 2) s += "  ld.global.b16 %h" + std::to_string(h) + ", [%rd9];\n";
        else s += "  ld.global.u8 %e" + std::to_string(h) + ", [%rd9];\n";
      }
      std::string reg = dst + std::to_string(r + reg0);
      if (es == 2) s += "  mov.b32 " + reg + ", {%h0, %h1};\n";
      if (es == 1)
        s += "  shl.b32 %e1, %e1, 8;\n  shl.b32 %e2, %e2, 16;\n  shl.b32 %e3, %e3, 24;\n  or.b32 " + reg +
             ", %e0, %e1;\n  or.b32 " + reg + ", " + reg + ", %e2;\n  or.b32 " + reg + ", " + reg + ", %e3;\n";
    }
  };
  gather("%rd1", "%rd5", f.na * f.per, 0, "%a", f.per, f.es);
  gather("%rd2", "%rd6", f.nb * f.per, 0, "%b", f.per, f.es);
  gather("%rd3", "%rd7", 4, 0, "%c", 1, 4);
  auto list = [](const char* p, int n) {
    std::string r = "{";
    for (int i = 0; i < n; ++i) r += std::string(i ? ", " : "") + p + std::to_string(i);
    return r + "}";
  };
  s += "  " + std::string(f.name) + " " + list("%d", 4) + ", " + list("%a", f.na) + ", " + list("%b", f.nb) + ", " +
       list("%c", 4) + ";\n";
  for (int i = 0; i < 4; ++i) {
    s += "  mad.lo.u32 %t, %lane, 4, " + std::to_string(i) + ";\n";
    s += "  mul.wide.u32 %off, %t, 4;\n  add.s64 %rd8, %rd7, %off;\n  ld.global.u32 %ix, [%rd8];\n";
    s += "  mul.wide.u32 %off, %ix, 4;\n  add.s64 %rd9, %rd4, %off;\n  st.global.b32 [%rd9], %d" + std::to_string(i) + ";\n";
  }
  s += "  ret;\n";
  return kernel(".param .u64 pA, .param .u64 pB, .param .u64 pC, .param .u64 pD, .param .u64 pIA, .param .u64 pIB, "
                ".param .u64 pIC",
                s, 32);
}

// Random A (16 x K), B (K x 8) as raw element bits, their values, and C.
struct Data {
  std::vector<uint8_t> A, B;
  std::vector<double> av, bv;
  std::vector<uint32_t> C;
};

Data make_data(const Form& f, uint32_t seed) {
  std::mt19937 g(seed);
  Data d;
  d.A.resize(16 * f.K * f.es);
  d.B.resize(f.K * 8 * f.es);
  d.av.resize(16 * f.K);
  d.bv.resize(f.K * 8);
  auto fill = [&](std::vector<uint8_t>& raw, std::vector<double>& val) {
    for (size_t i = 0; i < val.size(); ++i) {
      std::string t = f.atype;
      if (t == "s8") {
        int8_t v = int8_t(g());
        raw[i] = uint8_t(v);
        val[i] = v;
      } else if (t == "u8") {
        raw[i] = uint8_t(g());
        val[i] = raw[i];
      } else {
        double x = (int(g() % 2001) - 1000) / 256.0 * std::ldexp(1.0, int(g() % 7) - 3);
        if (t == "tf32") {
          uint32_t b = fbits(float(x)) & 0xffffe000u;
          std::memcpy(&raw[4 * i], &b, 4);
          val[i] = bfloat(b);
        } else {
          const Narrow& n = t == "f16" ? kHalf : kBf16;
          uint16_t b = uint16_t(n.round(x, RN));
          std::memcpy(&raw[2 * i], &b, 2);
          val[i] = n.value(b);
        }
      }
    }
  };
  fill(d.A, d.av);
  fill(d.B, d.bv);
  d.C.resize(16 * 8);
  for (auto& c : d.C) c = f.integer ? uint32_t(int32_t(g() % 20001) - 10000) : fbits(float(int(g() % 2001) - 1000) / 64.0f);
  return d;
}

// Runs the form with the given A-table layout; returns how many D elements
// differ from the host matrix multiply.
int mma_mismatches(const Form& f, const std::function<std::pair<int, int>(int, int)>& a_layout, uint32_t seed) {
  Data d = make_data(f, seed);
  int NA = f.na * f.per, NB = f.nb * f.per;
  std::vector<uint32_t> IA(32 * NA), IB(32 * NB), IC(32 * 4), D(16 * 8, 0xffffffffu);
  for (int l = 0; l < 32; ++l) {
    for (int i = 0; i < NA; ++i) {
      auto [r, c] = a_layout(l, i);
      IA[l * NA + i] = uint32_t(r * f.K + c);
    }
    for (int i = 0; i < NB; ++i) {
      auto [r, c] = isa_b(f, l, i);
      IB[l * NB + i] = uint32_t(r * 8 + c);
    }
    for (int i = 0; i < 4; ++i) {
      auto [r, c] = isa_c(l, i);
      IC[l * 4 + i] = uint32_t(r * 8 + c);
    }
  }
  Result res = run(mma_kernel(f),
                   {addr(d.A.data()), addr(d.B.data()), addr(d.C.data()), addr(D.data()), addr(IA.data()),
                    addr(IB.data()), addr(IC.data())},
                   {buf(d.A), buf(d.B), buf(d.C), buf(D), buf(IA), buf(IB), buf(IC)});
  INFO(f.name);
  REQUIRE_RUN(res);
  int bad = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      if (f.integer) {
        int64_t s = int32_t(d.C[i * 8 + j]);
        for (int k = 0; k < f.K; ++k) s += int64_t(d.av[i * f.K + k]) * int64_t(d.bv[k * 8 + j]);
        bad += uint32_t(s) != D[i * 8 + j];
      } else {
        double s = bfloat(d.C[i * 8 + j]), mag = std::fabs(s);
        for (int k = 0; k < f.K; ++k) {
          s += d.av[i * f.K + k] * d.bv[k * 8 + j];
          mag += std::fabs(d.av[i * f.K + k] * d.bv[k * 8 + j]);
        }
        // DESIGN §6: the summation bound, n eps sum|x|.
        bad += std::fabs(double(bfloat(D[i * 8 + j])) - s) > (f.K + 1) * 0x1p-24 * mag;
      }
    }
  return bad;
}

const Form kForms[] = {
    {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, "f16", 4, 2, 2, 2, false},
    {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, "bf16", 4, 2, 2, 2, false},
    {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 8, "f16", 2, 1, 2, 2, false},
    {"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", 8, "bf16", 2, 1, 2, 2, false},
    {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 8, "tf32", 4, 2, 1, 4, false},
    {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 32, "s8", 4, 2, 4, 1, true},
    {"mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", 32, "u8", 4, 2, 4, 1, true},
    {"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", 16, "s8", 2, 1, 4, 1, true},
};

}  // namespace

TEST_CASE("every mma form matches a plain matrix multiply through the ISA's fragment tables") {
  for (const Form& f : kForms)
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      INFO(f.name << " seed " << seed);
      REQUIRE(mma_mismatches(f, [&](int l, int i) { return isa_a(f, l, i); }, seed) == 0);
    }
}

TEST_CASE("mutant: a wrong A fragment layout gives a wrong product") {
  for (const Form& f : kForms) {
    INFO(f.name);
    // Rows g and g+8 swapped, as a backend that misread the figure would.
    auto swapped = [&](int l, int i) {
      auto [r, c] = isa_a(f, l, i);
      return std::make_pair(r < 8 ? r + 8 : r - 8, c);
    };
    REQUIRE(mma_mismatches(f, swapped, 1) > 0);
    // Columns within a thread's pair / quad reversed.
    auto reversed = [&](int l, int i) {
      auto [r, c] = isa_a(f, l, i);
      return std::make_pair(r, (c ^ 1));
    };
    REQUIRE(mma_mismatches(f, reversed, 1) > 0);
  }
}

TEST_CASE("mma needs the whole warp converged") {
  Form f = kForms[0];
  std::string text = mma_kernel(f);
  text.insert(text.find("  mma.sync"), "  setp.eq.u32 %p9, %lane, 7;\n  @%p9 bra SKIP;\n");
  text.insert(text.find("  st.global.b32 [%rd9], %d0;"), "SKIP:\n");
  text.insert(text.find("  .reg .b32 %ix"), "  .reg .pred %p9;\n");
  Data d = make_data(f, 1);
  std::vector<uint32_t> I(32 * 8), D(128);
  Result r = run(text,
                 {addr(d.A.data()), addr(d.B.data()), addr(d.C.data()), addr(D.data()), addr(I.data()), addr(I.data()),
                  addr(I.data())},
                 {buf(d.A), buf(d.B), buf(d.C), buf(D), buf(I)});
  REQUIRE_FAULT(r, FaultKind::NotConverged);
  REQUIRE(r.fault.detail.find("lane 7 has exited") != std::string::npos);  // the others waited for it at the mma
}

namespace {

// ldmatrix over a 32 x 8 b16 matrix S in shared memory: lane l gives the
// address of row perm[l]; the registers go to out[lane][reg].
std::string ldmatrix_kernel(const std::string& shape) {
  int n = shape.find("x4") != std::string::npos ? 4 : shape.find("x2") != std::string::npos ? 2 : 1;
  std::string regs = "{";
  for (int i = 0; i < n; ++i) regs += std::string(i ? ", " : "") + "%d" + std::to_string(i);
  regs += "}";
  std::string st;
  for (int i = 0; i < n; ++i) st += "  st.global.b32 [%rd9+" + std::to_string(4 * i) + "], %d" + std::to_string(i) + ";\n";
  return kernel(".param .u64 pS, .param .u64 pP, .param .u64 pO", R"(
  .reg .b32 %r<10>, %d<4>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 S[512];
  ld.param.u64 %rd1, [pS];
  ld.param.u64 %rd2, [pP];
  ld.param.u64 %rd3, [pO];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];
  mov.u32 %r6, S;
  shl.b32 %r7, %r1, 4;
  add.u32 %r7, %r6, %r7;
  st.shared.v4.u32 [%r7], {%r2, %r3, %r4, %r5};
  bar.warp.sync 0xffffffff;
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.u32 %r8, [%rd7];
  shl.b32 %r8, %r8, 4;
  add.u32 %r9, %r6, %r8;
  ldmatrix.sync.aligned.m8n8.)" + shape + R"(.shared.b16 )" + regs + R"(, [%r9];
  mul.wide.u32 %rd8, %r1, 16;
  add.s64 %rd9, %rd3, %rd8;
)" + st + "  ret;\n");
}

}  // namespace

TEST_CASE("ldmatrix x1/x2/x4, with and without .trans, lane by lane against the ISA's table") {
  std::vector<uint16_t> S(32 * 8);
  for (int i = 0; i < 256; ++i) S[i] = uint16_t(i * 37 + 11);
  std::vector<uint32_t> perm(32);
  for (int l = 0; l < 32; ++l) perm[l] = uint32_t((l * 7 + 3) % 32);
  for (const char* shape : {"x1", "x2", "x4", "x1.trans", "x2.trans", "x4.trans"}) {
    std::vector<uint32_t> out(32 * 4, 0);
    Result r = run(ldmatrix_kernel(shape), {addr(S.data()), addr(perm.data()), addr(out.data())},
                   {buf(S), buf(perm), buf(out)});
    INFO(shape);
    REQUIRE_RUN(r);
    bool trans = std::string(shape).find("trans") != std::string::npos;
    int n = shape[1] - '0';
    for (int t = 0; t < 32; ++t)
      for (int i = 0; i < n; ++i) {
        // Matrix i's rows are the rows lanes 8i..8i+7 point at.
        auto M = [&](int row, int col) { return S[perm[8 * i + row] * 8 + col]; };
        uint32_t lo = trans ? M(2 * (t % 4), t / 4) : M(t / 4, 2 * (t % 4));
        uint32_t hi = trans ? M(2 * (t % 4) + 1, t / 4) : M(t / 4, 2 * (t % 4) + 1);
        INFO("lane " << t << " matrix " << i);
        REQUIRE(out[4 * t + i] == (lo | (hi << 16)));
      }
  }
}

TEST_CASE("GEMM tile: ldmatrix.x4 for A and ldmatrix.x2.trans for B feed mma.m16n8k16") {
  for (const char* ty : {"f16", "bf16"}) {
    Form f = std::string(ty) == "f16" ? kForms[0] : kForms[1];
    Data d = make_data(f, 7);
    std::vector<uint32_t> D(128, 0);
    std::string ptx = kernel(".param .u64 pA, .param .u64 pB, .param .u64 pC, .param .u64 pD", R"(
  .reg .b32 %r<16>, %a<4>, %b<2>, %c<4>, %d<4>;
  .reg .b64 %rd<12>;
  .shared .align 16 .b8 As[512];
  .shared .align 16 .b8 Bs[256];
  ld.param.u64 %rd1, [pA];
  ld.param.u64 %rd2, [pB];
  ld.param.u64 %rd3, [pC];
  ld.param.u64 %rd4, [pD];
  mov.u32 %r1, %laneid;
  // A: 512 bytes, 16 per lane; B: 256 bytes, 8 per lane.
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd6];
  mov.u32 %r6, As;
  shl.b32 %r7, %r1, 4;
  add.u32 %r8, %r6, %r7;
  st.shared.v4.u32 [%r8], {%r2, %r3, %r4, %r5};
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.v2.u32 {%r2, %r3}, [%rd6];
  mov.u32 %r9, Bs;
  shl.b32 %r7, %r1, 3;
  add.u32 %r8, %r9, %r7;
  st.shared.v2.u32 [%r8], {%r2, %r3};
  bar.warp.sync 0xffffffff;
  // A row-major 16x16: lane l -> row l%16, column block l/16.
  and.b32 %r10, %r1, 15;
  shr.u32 %r11, %r1, 4;
  shl.b32 %r12, %r10, 5;
  shl.b32 %r13, %r11, 4;
  add.u32 %r12, %r12, %r13;
  add.u32 %r12, %r6, %r12;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%a0, %a1, %a2, %a3}, [%r12];
  // B row-major 16x8 (K x N): lanes 0-15 give rows 0-15.
  shl.b32 %r14, %r10, 4;
  add.u32 %r14, %r9, %r14;
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%b0, %b1}, [%r14];
  // C / D: row g (+8), columns 2t, 2t+1.
  shr.u32 %r2, %r1, 2;
  and.b32 %r3, %r1, 3;
  shl.b32 %r3, %r3, 1;
  mad.lo.u32 %r4, %r2, 8, %r3;
  mul.wide.u32 %rd7, %r4, 4;
  add.s64 %rd8, %rd3, %rd7;
  ld.global.v2.f32 {%c0, %c1}, [%rd8];
  ld.global.v2.f32 {%c2, %c3}, [%rd8+256];
  mma.sync.aligned.m16n8k16.row.col.f32.)" + std::string(ty) + "." + ty + R"(.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};
  add.s64 %rd9, %rd4, %rd7;
  st.global.v2.f32 [%rd9], {%d0, %d1};
  st.global.v2.f32 [%rd9+256], {%d2, %d3};
  ret;
)");
    Result r = run(ptx, {addr(d.A.data()), addr(d.B.data()), addr(d.C.data()), addr(D.data())},
                   {buf(d.A), buf(d.B), buf(d.C), buf(D)});
    INFO(ty);
    REQUIRE_RUN(r);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) {
        double s = bfloat(d.C[i * 8 + j]), mag = std::fabs(s);
        for (int k = 0; k < 16; ++k) {
          s += d.av[i * 16 + k] * d.bv[k * 8 + j];
          mag += std::fabs(d.av[i * 16 + k] * d.bv[k * 8 + j]);
        }
        INFO(i << "," << j);
        REQUIRE(std::fabs(double(bfloat(D[i * 8 + j])) - s) <= 17 * 0x1p-24 * mag);
      }
  }
}
