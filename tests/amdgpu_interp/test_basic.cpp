// The reader, vadd (with a partial last wave), 64-bit address arithmetic,
// divergence with s_and_saveexec / s_cbranch_execz, a scalar loop, sub-dword
// memory and atomics, on every chip.
#include "amdgpu/code_object_reader.h"
#include "chip.h"
#include "harness.h"

using namespace amdgpu_test;

namespace {

const char* kVadd = R"(
  v_cmp_gt_u32 %VCC%, s12, v1
  %SAVEEXEC% %M20%, %VCC%
  s_cbranch_execz .Ldone
)";

std::string vadd_body() {
  return std::string(kPrologue) + kVadd + addr64(4, 4) + addr64(6, 6) + addr64(8, 10) + R"(
  %LD% v10, v[4:5], off
  %LD% v11, v[6:7], off offset:0
  s_waitcnt vmcnt(0)
  v_add_f32 v10, v10, v11
  %ST% v[8:9], v10, off
.Ldone:
  s_endpgm
)";
}

}  // namespace

TEST_CASE("reader: chip, descriptor and instructions", "[reader]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    std::string src = kernel_source(c, "vadd", spell(c, vadd_body()), KernelOpts{512, 32, 40});
    std::string err;
    auto bytes = build_hsaco(c, src, err);
    INFO(err);
    REQUIRE(!bytes.empty());
    emu::CodeObject co;
    REQUIRE(emu::read_code_object(bytes, co, err));
    REQUIRE(co.chip);
    CHECK(std::string(co.chip->name) == c.name);
    const emu::KernelCode* k = co.find("vadd");
    REQUIRE(k);
    CHECK(k->kd.group_segment_fixed_size == 512);
    CHECK(k->kd.user_sgpr_count() == (c.gfx11 ? 15u : 2u));
    CHECK(k->kd.tgid_x());
    CHECK(k->kd.kernarg_ptr());
    CHECK(k->kd.wave32() == c.gfx11);
    REQUIRE(!k->insts.empty());
    CHECK(k->insts.front().offset == 0);
    CHECK(k->insts.front().text == (c.gfx11 ? "s_load_b128 s[4:7], s[0:1], null" : "s_load_dwordx4 s[4:7], s[0:1], 0x0"));
    CHECK(k->insts.back().text == "s_endpgm");
    bool saw_add = false;
    for (const auto& i : k->insts) saw_add |= i.text == "v_add_f32_e32 v10, v10, v11";
    CHECK(saw_add);

    auto prog = emu::Program::load(bytes, err);
    REQUIRE(prog);
    CHECK(prog->chip() == c.name);
    CHECK(prog->kernels() == std::vector<std::string>{"vadd"});
  }
}

TEST_CASE("reader: garbage is refused", "[reader]") {
  std::vector<uint8_t> junk(100, 0x42);
  std::string err;
  CHECK(!emu::Program::load(junk, err));
  CHECK(err.find("not an ELF") != std::string::npos);
}

TEST_CASE("vadd over two workgroups, full and partial waves", "[vadd]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    auto prog = load_kernel(c, "vadd", vadd_body(), KernelOpts{0, 32, 40});
    for (unsigned block : {256u, 100u}) {
      const unsigned n = 2 * block - 7;  // the last lanes of the last workgroup do nothing
      std::vector<float> a(2 * block), b(2 * block), out(2 * block, -1.0f);
      for (unsigned i = 0; i < a.size(); ++i) a[i] = float(i) * 0.5f, b[i] = 1000.0f - float(i);
      emu::LaunchSpec ls;
      ls.kernel = "vadd";
      ls.grid_x = 2;
      ls.block_x = block;
      ls.kernarg = Kernarg().ptr(a.data()).ptr(b.data()).ptr(nullptr).ptr(out.data()).add(n).add(block).bytes;
      ls.buffers = {{a.data(), a.size() * 4}, {b.data(), b.size() * 4}, {out.data(), out.size() * 4}};
      emu::Stats st;
      std::string err;
      INFO(c.name << " block " << block << ": " << err);
      REQUIRE(prog->launch(ls, st, err));
      for (unsigned i = 0; i < out.size(); ++i) {
        INFO(c.name << " block " << block << " element " << i);
        CHECK(out[i] == (i < n ? a[i] + b[i] : -1.0f));
      }
      CHECK(st.waves == 2 * ((block + c.wave - 1) / c.wave));
      CHECK(st.instructions > 0);
    }
  }
}

TEST_CASE("64-bit address arithmetic: v_mad_u64_u32, 64-bit shifts, carries", "[addr64]") {
  AMDGPU_REQUIRE_TOOLS();
  // out[i] = in[perm[i]] with 8-byte elements: address = in + perm*8 by
  // v_mad_u64_u32, and by v_lshlrev_b64 + a carry chain; both must agree.
  const std::string body = std::string(kPrologue) + addr64(6, 6) + R"(
  %LD% v3, v[6:7], off
  s_waitcnt vmcnt(0)
  v_mad_u64_u32 v[8:9], %M20%, v3, 8, s[4:5]
  v_mov_b32 v11, 0
  v_mov_b32 v10, v3
  v_lshlrev_b64 v[10:11], 3, v[10:11]
  %ADDCO% v10, %VCC%, s4, v10
  v_mov_b32 v18, s5
  %ADDC% v11, %VCC%, v18, v11, %VCC%
  %LD2% v[12:13], v[8:9], off
  %LD2% v[14:15], v[10:11], off
  v_lshlrev_b32 v2, 3, v1
)" + addr64(16, 10) + R"(
  s_waitcnt vmcnt(0)
  v_cmp_eq_u64 %VCC%, v[12:13], v[14:15]
  v_cndmask_b32 v12, 0, v12, %VCC%
  %ST2% v[16:17], v[12:13], off
  s_endpgm
)";
  for (const auto& c : kChips) {
    auto prog = load_kernel(c, "gather", body);
    const unsigned n = 128;
    std::vector<uint64_t> in(n), out(n, 0);
    std::vector<uint32_t> perm(n);
    for (unsigned i = 0; i < n; ++i) in[i] = 0x1234567800000000ull + i * 0x100000001ull, perm[i] = (i * 37 + 5) % n;
    emu::LaunchSpec ls;
    ls.kernel = "gather";
    ls.grid_x = 2;
    ls.block_x = 64;
    ls.kernarg = Kernarg().ptr(in.data()).ptr(perm.data()).ptr(nullptr).ptr(out.data()).add(n).add(64u).bytes;
    ls.buffers = {{in.data(), n * 8}, {perm.data(), n * 4}, {out.data(), n * 8}};
    emu::Stats st;
    std::string err;
    INFO(c.name << ": " << err);
    REQUIRE(prog->launch(ls, st, err));
    for (unsigned i = 0; i < n; ++i) {
      INFO(c.name << " element " << i);
      CHECK(out[i] == in[perm[i]]);
    }
  }
}

TEST_CASE("divergence: s_and_saveexec, s_cbranch_execz, exec restore, scalar loop", "[divergence]") {
  AMDGPU_REQUIRE_TOOLS();
  // out[i] = (x odd ? x*3 : x+100) + (sum of 0..x%8 in a per-lane loop
  // driven by exec), then a scalar loop adding 5 four times.
  const std::string body = std::string(kPrologue) + addr64(4, 4) + addr64(8, 10) + R"(
  %LD% v3, v[4:5], off
  s_waitcnt vmcnt(0)
  v_and_b32 v6, 1, v3
  v_cmp_ne_u32 %VCC%, 0, v6
  %SAVEEXEC% %M20%, %VCC%
  s_cbranch_execz .Lelse
  v_mul_lo_u32 v7, v3, 3
.Lelse:
  %SXOR% %EXEC%, %EXEC%, %M20%
  s_cbranch_execz .Ljoin
  %VADD% v7, 0x64, v3
.Ljoin:
  %SOR% %EXEC%, %EXEC%, %M20%
  v_and_b32 v6, 7, v3
  v_mov_b32 v10, 0
  v_mov_b32 v11, 0
  %SMOV% %M22%, %EXEC%
.Lloop:
  v_cmp_le_u32 %VCC%, v11, v6
  %SAND% %EXEC%, %EXEC%, %VCC%
  s_cbranch_execz .Lloop_end
  %VADD% v10, v10, v11
  %VADD% v11, 1, v11
  s_branch .Lloop
.Lloop_end:
  %SMOV% %EXEC%, %M22%
  %VADD% v7, v7, v10
  s_mov_b32 s30, 4
.Lsloop:
  %VADD% v7, 5, v7
  s_sub_u32 s30, s30, 1
  s_cmp_lg_u32 s30, 0
  s_cbranch_scc1 .Lsloop
  %ST% v[8:9], v7, off
  s_endpgm
)";
  for (const auto& c : kChips) {
    auto prog = load_kernel(c, "diverge", body);
    const unsigned n = 192;
    std::vector<uint32_t> x(n), out(n, 0);
    for (unsigned i = 0; i < n; ++i) x[i] = i * 7 + (i >> 3);
    emu::LaunchSpec ls;
    ls.kernel = "diverge";
    ls.grid_x = 2;
    ls.block_x = 96;
    ls.kernarg = Kernarg().ptr(x.data()).ptr(nullptr).ptr(nullptr).ptr(out.data()).add(n).add(96u).bytes;
    ls.buffers = {{x.data(), n * 4}, {out.data(), n * 4}};
    emu::Stats st;
    std::string err;
    INFO(c.name << ": " << err);
    REQUIRE(prog->launch(ls, st, err));
    for (unsigned i = 0; i < n; ++i) {
      uint32_t v = x[i], want = (v & 1) ? v * 3 : v + 100;
      for (uint32_t k = 0; k <= (v & 7); ++k) want += k;
      want += 20;
      INFO(c.name << " element " << i);
      CHECK(out[i] == want);
    }
  }
}

TEST_CASE("sub-dword loads and stores, x4 loads, atomics", "[memory]") {
  AMDGPU_REQUIRE_TOOLS();
  // x: bytes; y: a counter and a compare-swap cell; out: per lane 4 dwords.
  const std::string body = std::string(kPrologue) + addr64(4, 4) + R"(
  v_lshlrev_b32 v2, 4, v1
)" + addr64(8, 10) + R"(
  v_mov_b32 v2, v1
)" + addr64(12, 4) + R"(
  %LDU8% v20, v[12:13], off
  %LDI8% v21, v[12:13], off
  %LDU16% v22, v[12:13], off offset:1
  %LDI16% v23, v[12:13], off offset:1
  s_waitcnt vmcnt(0)
  %ST4% v[8:9], v[20:23], off
  %LD4% v[24:27], v[8:9], off
  s_waitcnt vmcnt(0)
  v_mov_b32 v6, s6
  v_mov_b32 v7, s7
  v_mov_b32 v3, 1
  %ATOMADD% v28, v[6:7], v3, off %GLC%
  %ATOMADD% v[6:7], v3, off
  v_mov_b32 v30, 7
  v_mov_b32 v31, 0
  %ATOMCAS% v29, v[6:7], v[30:31], off offset:4 %GLC%
  s_waitcnt vmcnt(0)
  %ST8% v[8:9], v24, off offset:12
  %ST16% v[8:9], v25, off offset:14
  s_endpgm
)";
  for (const auto& c : kChips) {
    auto prog = load_kernel(c, "mem", body);
    const unsigned n = 64;
    std::vector<uint8_t> x(n + 2);
    for (unsigned i = 0; i < x.size(); ++i) x[i] = uint8_t(i * 29 + 0x80);
    std::vector<uint32_t> y = {0, 0}, out(n * 4, 0);
    emu::LaunchSpec ls;
    ls.kernel = "mem";
    ls.grid_x = 1;
    ls.block_x = n;
    ls.kernarg = Kernarg().ptr(x.data()).ptr(y.data()).ptr(nullptr).ptr(out.data()).add(n).add(n).bytes;
    ls.buffers = {{x.data(), x.size()}, {y.data(), 8}, {out.data(), out.size() * 4}};
    emu::Stats st;
    std::string err;
    INFO(c.name << ": " << err);
    REQUIRE(prog->launch(ls, st, err));
    for (unsigned i = 0; i < n; ++i) {
      uint16_t h = uint16_t(x[i + 1] | x[i + 2] << 8);
      INFO(c.name << " lane " << i);
      CHECK(out[i * 4 + 0] == x[i]);
      CHECK(out[i * 4 + 1] == uint32_t(int32_t(int8_t(x[i]))));
      CHECK(out[i * 4 + 2] == h);
      // dword 3 was the i16 load; then byte 12 = the u8 value, bytes 14..15 = the i8 value's low half
      uint32_t want3 = x[i] | uint32_t(h >> 8) << 8 | uint32_t(uint16_t(int16_t(int8_t(x[i])))) << 16;
      CHECK(out[i * 4 + 3] == want3);
    }
    CHECK(y[0] == 2 * n);  // two adds per lane
    CHECK(y[1] == 7);      // exactly one lane swapped 0 -> 7
  }
}

// The long branch of branch_relax.h: s_getpc_b64, the label difference
// added, s_setpc_b64; and s_setpc_b64 to an address that is no
// instruction is a fault.
TEST_CASE("long branch: s_getpc_b64 / s_setpc_b64", "[branch]") {
  AMDGPU_REQUIRE_TOOLS();
  auto body = [](const char* target) {
    return std::string(kPrologue) + addr64(4, 10) + R"(
  v_mov_b32 v3, 1
  s_getpc_b64 s[20:21]
.Lpost:
  s_add_u32 s20, s20, ()" + target + R"(-.Lpost)&4294967295
  s_addc_u32 s21, s21, ()" + target + R"(-.Lpost)>>32
  s_setpc_b64 s[20:21]
  v_mov_b32 v3, 7
.Ltarget:
  v_add_u32_e32 v3, 40, v3
  %ST% v[4:5], v3, off
  s_endpgm
)";
  };
  for (const auto& c : kChips) {
    std::string b = body(".Ltarget");
    if (c.gfx11) b.replace(b.find("v_add_u32_e32"), 13, "v_add_nc_u32_e32");
    auto prog = load_kernel(c, "lb", b);
    std::vector<uint32_t> out(64, 0);
    emu::LaunchSpec ls;
    ls.kernel = "lb";
    ls.block_x = c.wave;
    ls.kernarg = Kernarg().ptr(nullptr).ptr(nullptr).ptr(nullptr).ptr(out.data()).add(c.wave).add(c.wave).bytes;
    ls.buffers = {{out.data(), out.size() * 4}};
    emu::Stats st;
    std::string err;
    INFO(c.name << ": " << err);
    REQUIRE(prog->launch(ls, st, err));
    for (unsigned i = 0; i < c.wave; ++i) CHECK(out[i] == 41u);
    // Two bytes past the target: inside an instruction.
    std::string off = body(".Ltarget+2");
    if (c.gfx11) off.replace(off.find("v_add_u32_e32"), 13, "v_add_nc_u32_e32");
    auto bad = load_kernel(c, "lb", off);
    CHECK_FALSE(bad->launch(ls, st, err));
    CHECK(err.find("not an instruction") != std::string::npos);
  }
}
