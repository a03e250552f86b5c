// Every fault report, located: a missing s_waitcnt (vector load, scalar
// load, partial vmcnt, an overwritten pending register), out-of-bounds
// global and LDS accesses, an uninitialised LDS read, a runaway kernel
// (step and time limits), code without s_endpgm, bad launches, and
// instructions refused at load.
#include "harness.h"

using namespace amdgpu_test;

namespace {

struct Outcome {
  bool ok;
  std::string err;
};

Outcome run1(const ChipCase& c, const std::string& body, unsigned lds = 0, uint64_t step_limit = uint64_t(1) << 32,
             double timeout = 0) {
  auto prog = load_kernel(c, "k", body, KernelOpts{lds, 32, 40});
  const unsigned n = 64;
  std::vector<uint32_t> x(n + 2, 1), out(n, 0);
  emu::LaunchSpec ls;
  ls.kernel = "k";
  ls.block_x = n;
  ls.step_limit = step_limit;
  ls.timeout_s = timeout;
  ls.kernarg = Kernarg().ptr(x.data()).ptr(nullptr).ptr(nullptr).ptr(out.data()).add(n).add(n).bytes;
  ls.buffers = {{x.data(), x.size() * 4}, {out.data(), n * 4}};
  emu::Stats st;
  Outcome o;
  o.ok = prog->launch(ls, st, o.err);
  return o;
}

std::string load_error(const ChipCase& c, const std::string& body) {
  std::string err;
  auto bytes = build_hsaco(c, kernel_source(c, "k", spell(c, body), KernelOpts{}), err);
  INFO(err);
  REQUIRE(!bytes.empty());
  auto p = emu::Program::load(bytes, err);
  CHECK(!p);
  return err;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("fault: a global load used before s_waitcnt", "[faults][waitcnt]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    auto o = run1(c, std::string(kPrologue) + addr64(4, 4) + R"(
  %LD% v3, v[4:5], off
  %VADD% v5, v3, v3
  s_endpgm
)");
    INFO(c.name << ": " << o.err);
    CHECK(!o.ok);
    CHECK(has(o.err, "v3 read before s_waitcnt (load at offset 0x"));
    CHECK(has(o.err, c.gfx11 ? "global_load_b32 v3, v[4:5], off" : "global_load_dword v3, v[4:5], off"));
    CHECK(has(o.err, "kernel k, workgroup 0, wave 0"));
  }
}

TEST_CASE("fault: vmcnt retires in order; a partial wait leaves the newer load pending", "[faults][waitcnt]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    const std::string head = std::string(kPrologue) + addr64(4, 4) + R"(
  %LD% v3, v[4:5], off
  %LD% v6, v[4:5], off offset:4
  s_waitcnt vmcnt(1)
  %VADD% v7, v3, v3
)";
    auto good = run1(c, head + "  s_endpgm\n");
    INFO(c.name << ": " << good.err);
    CHECK(good.ok);
    auto bad = run1(c, head + "  %VADD% v7, v6, v6\n  s_endpgm\n");
    INFO(bad.err);
    CHECK(!bad.ok);
    CHECK(has(bad.err, "v6 read before s_waitcnt"));
  }
}

TEST_CASE("fault: a pending load destination overwritten", "[faults][waitcnt]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    auto o = run1(c, std::string(kPrologue) + addr64(4, 4) + R"(
  %LD2% v[8:9], v[4:5], off
  v_mov_b32 v9, 0
  s_endpgm
)");
    INFO(c.name << ": " << o.err);
    CHECK(!o.ok);
    CHECK(has(o.err, "v9 overwritten before s_waitcnt"));
  }
}

TEST_CASE("fault: a scalar load used before s_waitcnt lgkmcnt(0)", "[faults][waitcnt]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    auto o = run1(c, R"(
  %SLD2% s[4:5], s[0:1], 0x0
  %SLD% s6, s[0:1], 0x20
  s_waitcnt lgkmcnt(1)
  v_mov_b32 v1, s4
  s_endpgm
)");
    INFO(c.name << ": " << o.err);
    CHECK(!o.ok);
    CHECK(has(o.err, "s4 read before s_waitcnt"));
  }
}

TEST_CASE("fault: an out-of-bounds global store", "[faults][bounds]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    // Lane 63 stores one element past the end of out.
    auto o = run1(c, std::string(kPrologue) + addr64(8, 10) + R"(
  %ST% v[8:9], v1, off offset:4
  s_endpgm
)");
    INFO(c.name << ": " << o.err);
    CHECK(!o.ok);
    CHECK(has(o.err, "out-of-bounds global store of 4 bytes at 0x"));
    CHECK(has(o.err, "lane " + std::to_string(c.wave - 1)));
    CHECK(has(o.err, c.gfx11 ? "`global_store_b32 v[8:9], v1, off offset:4`" : "`global_store_dword v[8:9], v1, off offset:4`"));
  }
}

TEST_CASE("fault: out-of-bounds and uninitialised LDS", "[faults][lds]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    auto uninit = run1(c, R"(
  v_lshlrev_b32 v1, 2, v0
  %DSW% v1, v0
  s_waitcnt lgkmcnt(0)
  %DSR% v2, v1 offset:4
  s_waitcnt lgkmcnt(0)
  s_endpgm
)",
                       512);
    INFO(c.name << ": " << uninit.err);
    CHECK(!uninit.ok);
    CHECK(has(uninit.err, "read of uninitialised LDS"));
    CHECK(has(uninit.err, "lane " + std::to_string(c.wave - 1)));
    auto oob = run1(c, R"(
  v_lshlrev_b32 v1, 3, v0
  %DSW% v1, v0
  s_endpgm
)",
                    256);
    INFO(oob.err);
    CHECK(!oob.ok);
    CHECK(has(oob.err, "out-of-bounds LDS write of 4 bytes at 0x100 (the kernel allocates 256 bytes)"));
  }
}

TEST_CASE("fault: a runaway kernel hits the step limit and the time limit", "[faults][limits]") {
  AMDGPU_REQUIRE_TOOLS();
  const char* spin = R"(
.Lspin:
  s_nop 0
  s_branch .Lspin
)";
  for (const auto& c : kChips) {
    auto o = run1(c, spin, 0, 100000);
    INFO(c.name << ": " << o.err);
    CHECK(!o.ok);
    CHECK(has(o.err, "step limit reached (100000 wave instructions)"));
    auto t = run1(c, spin, 0, ~uint64_t(0), 0.2);
    INFO(t.err);
    CHECK(!t.ok);
    CHECK(has(t.err, "time limit"));
  }
}

TEST_CASE("fault: code that runs off its end", "[faults]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    auto o = run1(c, "  v_mov_b32 v1, 0\n");
    INFO(c.name << ": " << o.err);
    CHECK(!o.ok);
    CHECK(has(o.err, "ran past the end of the kernel without s_endpgm"));
  }
}

TEST_CASE("launch errors: unknown kernel, bad sizes", "[faults]") {
  AMDGPU_REQUIRE_TOOLS();
  const auto& c = kChips[0];
  auto prog = load_kernel(c, "k", "  s_endpgm\n");
  emu::LaunchSpec ls;
  emu::Stats st;
  std::string err;
  ls.kernel = "nope";
  CHECK(!prog->launch(ls, st, err));
  CHECK(has(err, "no kernel `nope`"));
  ls.kernel = "k";
  ls.block_x = 0;
  CHECK(!prog->launch(ls, st, err));
  CHECK(has(err, "block_x must be 1..1024"));
  ls.block_x = 1024;
  CHECK(prog->launch(ls, st, err));
  CHECK(st.waves == 16);
}

TEST_CASE("load refuses instructions it does not run", "[faults][decode]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    std::string e = load_error(c, "  v_sin_f32 v1, v2\n  s_endpgm\n");
    INFO(c.name << ": " << e);
    CHECK(has(e, "kernel k at offset 0x0: `v_sin_f32_e32 v1, v2`: not an instruction the backend emits"));
    e = load_error(c, "  v_add_f32_e64 v1, v2, v3 clamp\n  s_endpgm\n");
    INFO(e);
    CHECK(has(e, "clamp and output modifiers are not emitted"));
  }
}
