// No input crashes or hangs the interpreter: mutated kernels (lines
// dropped, duplicated, swapped; characters replaced) either fail to parse
// with a located error or run to completion or a fault, under a step limit.
#include <random>
#include <sstream>

#include "harness.h"

using namespace ptxt;

namespace {

const char* kSeed = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u32 n)
.reqntid 64, 1, 1
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 sm[1024];
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r2, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];
  add.f32 %f5, %f1, %f2;
  shl.b32 %r3, %r2, 4;
  mov.u32 %r4, sm;
  add.u32 %r5, %r4, %r3;
  st.shared.f32 [%r5], %f5;
  bar.sync 0;
  shfl.sync.bfly.b32 %r6, %r2, 1, 31, 0xffffffff;
  ld.shared.f32 %f6, [%r5];
  cvt.rn.f16x2.f32 %r7, %f6, %f3;
  mov.b32 {%rs1, %rs2}, %r7;
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r7, %r7, %r7, %r7}, {%r7, %r7}, {%f1, %f2, %f3, %f4};
LOOP:
  add.u32 %r8, %r8, 1;
  setp.lt.u32 %p2, %r8, 10;
  @%p2 bra LOOP;
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.f32 [%rd5], {%f1, %f2, %f3, %f4};
DONE:
  ret;
}
)";

}  // namespace

TEST_CASE("mutated kernels never crash or hang the parser or the executor") {
  std::vector<std::string> lines;
  {
    std::istringstream in(std::string(kSeed) + "");
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  lines.insert(lines.begin() + 9, "  .reg .b16 %rs<3>;");
  std::vector<float> a(64 * 4, 1.0f), b(64 * 4);
  std::mt19937 g(99);
  int parsed = 0, ran = 0;
  const char alphabet[] = "%$.,;:{}[]()@!|+-<>=_0123456789abcdefxyzADFLpr \t\n\"";
  for (int trial = 0; trial < 1500; ++trial) {
    std::vector<std::string> m = lines;
    int edits = 1 + int(g() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t i = g() % m.size(), j = g() % m.size();
      switch (g() % 5) {
        case 0: m.erase(m.begin() + long(i)); break;
        case 1: m.insert(m.begin() + long(i), m[j]); break;
        case 2: std::swap(m[i], m[j]); break;
        default:
          if (!m[i].empty()) m[i][g() % m[i].size()] = alphabet[g() % (sizeof alphabet - 1)];
          break;
      }
      if (m.empty()) m.push_back("");
    }
    std::string text;
    for (auto& l : m) text += l + "\n";
    std::string err;
    auto p = Program::parse(text, err);
    if (!p) {
      REQUIRE(!err.empty());
      REQUIRE(err.rfind("ptx:", 0) == 0);
      continue;
    }
    ++parsed;
    const EntryInfo* e = p->entry("k");
    if (!e) continue;
    std::vector<uint64_t> args = {addr(a.data()), addr(b.data()), 64};
    args.resize(e->params.size(), 0);
    LaunchOptions o;
    o.step_limit = 20000;
    o.block[0] = e->reqntid[0] ? 0 : 64;
    Fault f;
    if (launch(*p, "k", args, {buf(a), buf(b)}, o, f)) ++ran;
    else REQUIRE(!f.message.empty());
  }
  WARN(parsed << " of 1500 mutants parsed, " << ran << " ran without a fault");
  REQUIRE(parsed > 50);
}
