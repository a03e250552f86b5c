// LDS and cross-lane: a workgroup reduction through LDS with s_barrier
// (and its mutants: no barrier, no s_waitcnt, a write-after-read race),
// sub-dword and wide LDS accesses, the ds_swizzle butterfly reduction and
// its other patterns, ds_bpermute, on every chip.
#include "harness.h"

using namespace amdgpu_test;

namespace {

// Each lane stores x[gid] at LDS tid*4; after the barrier lane 0 adds the
// block's values and stores the sum at out[workgroup]. @PRE@ and @SYNC@ are
// where the mutants differ.
std::string reduce_body(const std::string& pre, const std::string& sync, const std::string& loop_wait) {
  return std::string(kPrologue) + addr64(4, 4) + R"(
  %LD% v3, v[4:5], off
  v_lshlrev_b32 v6, 2, v0
)" + pre + R"(
  s_waitcnt vmcnt(0)
  %DSW% v6, v3
)" + sync + R"(
  v_cmp_eq_u32 %VCC%, 0, v0
  %SAVEEXEC% %M20%, %VCC%
  s_cbranch_execz .Ldone
  v_mov_b32 v7, 0
  v_mov_b32 v8, 0
  s_mov_b32 s30, 0
.Lloop:
  %DSR% v9, v8
  %DSR% v10, v8 offset:4
)" + loop_wait + R"(
  %VADD% v7, v7, v9
  %VADD% v7, v7, v10
  %VADD% v8, 8, v8
  s_add_u32 s30, s30, 2
  s_cmp_lg_u32 s30, s13
  s_cbranch_scc1 .Lloop
  s_lshl_b32 s31, %WG%, 2
  v_mov_b32 v12, s31
)" + addr64(14, 10, 12) + R"(
  %ST% v[14:15], v7, off
.Ldone:
  s_endpgm
)";
}

const char* kSync = "  s_waitcnt lgkmcnt(0)\n  s_barrier\n";
const char* kLoopWait = "  s_waitcnt lgkmcnt(0)\n";

struct ReduceRun {
  bool ok;
  std::string err;
  std::vector<uint32_t> out;
  std::vector<uint32_t> x;
};

ReduceRun run_reduce(const ChipCase& c, const std::string& body, unsigned block) {
  auto prog = load_kernel(c, "reduce", body, KernelOpts{1024, 32, 40});
  const unsigned groups = 3;
  ReduceRun r;
  r.x.resize(groups * block);
  for (unsigned i = 0; i < r.x.size(); ++i) r.x[i] = i * 2654435761u >> 8;
  r.out.assign(groups, 0);
  emu::LaunchSpec ls;
  ls.kernel = "reduce";
  ls.grid_x = groups;
  ls.block_x = block;
  ls.kernarg = Kernarg().ptr(r.x.data()).ptr(nullptr).ptr(nullptr).ptr(r.out.data()).add(groups * block).add(block).bytes;
  ls.buffers = {{r.x.data(), r.x.size() * 4}, {r.out.data(), r.out.size() * 4}};
  emu::Stats st;
  r.ok = prog->launch(ls, st, r.err);
  return r;
}

// One workgroup of n lanes over x[i] = i * 1000003 + 17, each lane
// writing 8 dwords of out (the cross-lane tests).
void run_cross_lane(const ChipCase& c, emu::Program& prog, const char* kernel, unsigned n, std::vector<uint32_t>& x,
                    std::vector<uint32_t>& out) {
  x.assign(n, 0);
  out.assign(n * 8, 0);
  for (unsigned i = 0; i < n; ++i) x[i] = i * 1000003u + 17;
  emu::LaunchSpec ls;
  ls.kernel = kernel;
  ls.block_x = n;
  ls.kernarg = Kernarg().ptr(x.data()).ptr(nullptr).ptr(nullptr).ptr(out.data()).add(n).add(n).bytes;
  ls.buffers = {{x.data(), n * 4}, {out.data(), out.size() * 4}};
  emu::Stats st;
  std::string err;
  INFO(c.name << ": " << err);
  REQUIRE(prog.launch(ls, st, err));
}
}  // namespace

TEST_CASE("LDS reduction across waves with s_barrier", "[lds]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    for (unsigned block : {256u, 96u}) {
      auto r = run_reduce(c, reduce_body("", kSync, kLoopWait), block);
      INFO(c.name << " block " << block << ": " << r.err);
      REQUIRE(r.ok);
      for (unsigned g = 0; g < r.out.size(); ++g) {
        uint32_t want = 0;
        for (unsigned i = 0; i < block; ++i) want += r.x[g * block + i];
        CHECK(r.out[g] == want);
      }
    }
  }
}

TEST_CASE("LDS mutant: the barrier removed is a fault", "[lds][mutant]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    auto r = run_reduce(c, reduce_body("", "  s_waitcnt lgkmcnt(0)\n", kLoopWait), 256);
    INFO(c.name << ": " << r.err);
    CHECK(!r.ok);
    CHECK((r.err.find("uninitialised LDS") != std::string::npos || r.err.find("LDS race") != std::string::npos));
    CHECK(r.err.find("kernel reduce, workgroup 0, wave 0") != std::string::npos);
  }
}

TEST_CASE("LDS mutant: a write after another wave's read without a barrier is a race", "[lds][mutant]") {
  AMDGPU_REQUIRE_TOOLS();
  // Everything is initialised first (zeros, then a barrier), so only the
  // race check can catch the missing second barrier.
  const std::string pre = "  v_mov_b32 v11, 0\n  %DSW% v6, v11\n  s_waitcnt lgkmcnt(0)\n  s_barrier\n";
  for (const auto& c : kChips) {
    auto r = run_reduce(c, reduce_body(pre, "  s_waitcnt lgkmcnt(0)\n", kLoopWait), 256);
    INFO(c.name << ": " << r.err);
    CHECK(!r.ok);
    CHECK(r.err.find("LDS race") != std::string::npos);
    CHECK(r.err.find("after another wave read it") != std::string::npos);
    // With both barriers it runs.
    auto good = run_reduce(c, reduce_body(pre, kSync, kLoopWait), 256);
    INFO(good.err);
    CHECK(good.ok);
  }
}

TEST_CASE("LDS mutant: a ds_read used before s_waitcnt is a fault", "[lds][mutant][waitcnt]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    auto r = run_reduce(c, reduce_body("", kSync, ""), 256);
    INFO(c.name << ": " << r.err);
    CHECK(!r.ok);
    CHECK(r.err.find("v9 read before s_waitcnt") != std::string::npos);
    // lgkmcnt(1): the first ds_read is done (LDS retires in order), the second not.
    auto r1 = run_reduce(c, reduce_body("", kSync, "  s_waitcnt lgkmcnt(1)\n"), 256);
    INFO(r1.err);
    CHECK(!r1.ok);
    CHECK(r1.err.find("v10 read before s_waitcnt") != std::string::npos);
  }
}

TEST_CASE("LDS: sub-dword and wide accesses", "[lds]") {
  AMDGPU_REQUIRE_TOOLS();
  // Lane l writes bytes/shorts/dwords into its own 16-byte slot, reads them
  // back with the other widths and stores what it read.
  const std::string body = std::string(kPrologue) + addr64(4, 4) + R"(
  %LD% v3, v[4:5], off
  v_lshlrev_b32 v6, 4, v0
  s_waitcnt vmcnt(0)
  %DSW8% v6, v3
  v_lshrrev_b32 v7, 8, v3
  %DSW8% v6, v7 offset:1
  v_lshrrev_b32 v7, 16, v3
  %DSW16% v6, v7 offset:2
  %DSW% v6, v3 offset:4
  v_not_b32 v8, v3
  v_mov_b32 v9, v3
  %DSW2% v6, v[8:9] offset:8
  s_waitcnt lgkmcnt(0)
  %DSR4% v[20:23], v6
  %DSRU8% v24, v6 offset:3
  %DSRI8% v25, v6 offset:3
  %DSRU16% v26, v6 offset:2
  %DSRI16% v27, v6 offset:2
  s_waitcnt lgkmcnt(0)
  %DSW4% v6, v[24:27]
  %DSR2% v[28:29], v6 offset:8
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v2, 5, v1
)" + addr64(12, 10) + R"(
  %ST4% v[12:13], v[20:23], off
  %ST2% v[12:13], v[28:29], off offset:16
  %ST2% v[12:13], v[24:25], off offset:24
  s_endpgm
)";
  for (const auto& c : kChips) {
    auto prog = load_kernel(c, "ldsw", body, KernelOpts{64 * 16, 32, 40});
    const unsigned n = 64;
    std::vector<uint32_t> x(n), out(n * 8, 0);
    for (unsigned i = 0; i < n; ++i) x[i] = 0x8091a2b3u + i * 0x01020304u;
    emu::LaunchSpec ls;
    ls.kernel = "ldsw";
    ls.block_x = n;
    ls.kernarg = Kernarg().ptr(x.data()).ptr(nullptr).ptr(nullptr).ptr(out.data()).add(n).add(n).bytes;
    ls.buffers = {{x.data(), n * 4}, {out.data(), out.size() * 4}};
    emu::Stats st;
    std::string err;
    INFO(c.name << ": " << err);
    REQUIRE(prog->launch(ls, st, err));
    for (unsigned i = 0; i < n; ++i) {
      uint32_t v = x[i];
      uint8_t b3 = uint8_t(v >> 24);
      uint16_t h = uint16_t(v >> 16);
      INFO(c.name << " lane " << i);
      CHECK(out[i * 8 + 0] == v);
      CHECK(out[i * 8 + 1] == v);
      CHECK(out[i * 8 + 2] == ~v);
      CHECK(out[i * 8 + 3] == v);
      CHECK(out[i * 8 + 4] == h);  // the b64 read of what the b128 write left at bytes 8..15
      CHECK(out[i * 8 + 5] == uint32_t(int32_t(int16_t(h))));
      CHECK(out[i * 8 + 6] == b3);
      CHECK(out[i * 8 + 7] == uint32_t(int32_t(int8_t(b3))));
    }
  }
}

TEST_CASE("ds_swizzle butterfly reduction and the other patterns, ds_bpermute", "[lds][swizzle]") {
  AMDGPU_REQUIRE_TOOLS();
  const std::string body = std::string(kPrologue) + addr64(4, 4) + R"(
  %LD% v3, v[4:5], off
  s_waitcnt vmcnt(0)
  v_mov_b32 v7, v3
  ds_swizzle_b32 v8, v7 offset:swizzle(SWAP,16)
  s_waitcnt lgkmcnt(0)
  %VADD% v7, v7, v8
  ds_swizzle_b32 v8, v7 offset:swizzle(SWAP,8)
  s_waitcnt lgkmcnt(0)
  %VADD% v7, v7, v8
  ds_swizzle_b32 v8, v7 offset:swizzle(SWAP,4)
  s_waitcnt lgkmcnt(0)
  %VADD% v7, v7, v8
  ds_swizzle_b32 v8, v7 offset:swizzle(SWAP,2)
  s_waitcnt lgkmcnt(0)
  %VADD% v7, v7, v8
  ds_swizzle_b32 v8, v7 offset:swizzle(SWAP,1)
  s_waitcnt lgkmcnt(0)
  %VADD% v20, v7, v8
  ds_swizzle_b32 v21, v3 offset:swizzle(BITMASK_PERM,"01pip")
  ds_swizzle_b32 v22, v3 offset:swizzle(QUAD_PERM,3,2,1,0)
  ds_swizzle_b32 v23, v3 offset:swizzle(BROADCAST,8,5)
  v_lshlrev_b32 v9, 2, v0
  %VADD% v9, 4, v9
  ds_bpermute_b32 v24, v9, v3
  v_and_b32 v9, 3, v0
  v_cmp_ne_u32 %VCC%, 3, v9
  %SAVEEXEC% %M20%, %VCC%
  ds_swizzle_b32 v25, v3 offset:swizzle(SWAP,1)
  %SOR% %EXEC%, %EXEC%, %M20%
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v2, 5, v1
)" + addr64(12, 10) + R"(
  %ST4% v[12:13], v[20:23], off
  %ST2% v[12:13], v[24:25], off offset:16
  s_endpgm
)";
  for (const auto& c : kChips) {
    auto prog = load_kernel(c, "swz", body);
    const unsigned n = 128;
    std::vector<uint32_t> x, out;
    run_cross_lane(c, *prog, "swz", n, x, out);
    for (unsigned i = 0; i < n; ++i) {
      unsigned g = i & ~31u, l = i & 31, wbase = i - i % c.wave;
      uint32_t sum = 0;
      for (unsigned k = 0; k < 32; ++k) sum += x[g + k];
      INFO(c.name << " lane " << i);
      CHECK(out[i * 8 + 0] == sum);
      CHECK(out[i * 8 + 1] == x[g + (((l & 7) | 8) ^ 2)]);
      CHECK(out[i * 8 + 2] == x[(i & ~3u) + (3 - (i & 3))]);
      CHECK(out[i * 8 + 3] == x[g + ((l & ~7u) | 5)]);
      CHECK(out[i * 8 + 4] == x[wbase + (i % c.wave + 1) % c.wave]);
      // lanes with (i & 3) == 3 were inactive: lane 2 of each quad reads 0 from them
      if ((i & 3) != 3) CHECK(out[i * 8 + 5] == ((i & 3) == 2 ? 0u : x[i ^ 1]));
    }
  }
}

// The DPP moves the backend's butterflies use (isel_mem.cpp): quad_perm,
// row shifts limited to some banks or rows, bound_ctrl, a disabled source,
// and gfx11's row_xmask.
TEST_CASE("DPP moves: quad_perm, row shifts with bank and row masks, bound_ctrl", "[lds][dpp]") {
  AMDGPU_REQUIRE_TOOLS();
  const std::string body = std::string(kPrologue) + addr64(4, 4) + R"(
  %LD% v3, v[4:5], off
  v_mov_b32 v23, 0xdead
  v_mov_b32 v24, 7
  s_waitcnt vmcnt(0)
  s_nop 1
  v_mov_b32_dpp v20, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_mov_b32_dpp v21, v3 row_shl:4 row_mask:0xf bank_mask:0x5 bound_ctrl:1
  v_mov_b32_dpp v21, v3 row_shr:4 row_mask:0xf bank_mask:0xa bound_ctrl:1
  v_mov_b32_dpp v22, v3 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_mov_b32_dpp v23, v3 row_shr:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v24, v3 quad_perm:[3,3,3,3] row_mask:0x1 bank_mask:0xf
  %XMASK%
  v_and_b32 v9, 3, v0
  v_cmp_ne_u32 %VCC%, 3, v9
  %SAVEEXEC% %M20%, %VCC%
  s_nop 1
  v_mov_b32_dpp v26, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
  %SOR% %EXEC%, %EXEC%, %M20%
  v_lshlrev_b32 v2, 5, v1
)" + addr64(12, 10) + R"(
  %ST4% v[12:13], v[20:23], off
  %ST4% v[12:13], v[24:27], off offset:16
  s_endpgm
)";
  for (const auto& c : kChips) {
    std::map<std::string, std::string> extra = {
        {"XMASK", c.gfx11 ? "v_mov_b32_dpp v25, v3 row_xmask:11 row_mask:0xf bank_mask:0xf bound_ctrl:1" : "v_mov_b32 v25, 0"}};
    auto prog = load_kernel(c, "dpp", body, KernelOpts{}, extra);
    const unsigned n = 128;
    std::vector<uint32_t> x, out;
    run_cross_lane(c, *prog, "dpp", n, x, out);
    for (unsigned i = 0; i < n; ++i) {
      unsigned r = i % 16, row_in_wave = (i % c.wave) / 16;
      INFO(c.name << " lane " << i);
      CHECK(out[i * 8 + 0] == x[i ^ 1]);
      CHECK(out[i * 8 + 1] == x[i ^ 4]);
      CHECK(out[i * 8 + 2] == (r >= 3 ? x[i - 3] : 0u));
      CHECK(out[i * 8 + 3] == (r >= 1 ? x[i - 1] : 0xdeadu));  // no bound_ctrl: not written
      CHECK(out[i * 8 + 4] == (row_in_wave == 0 ? x[i | 3] : 7u));
      CHECK(out[i * 8 + 5] == (c.gfx11 ? x[i ^ 11] : 0u));
      // lanes with (i & 3) == 3 were off: lane 2 of each quad reads 0 from them
      if ((i & 3) != 3) CHECK(out[i * 8 + 6] == ((i & 3) == 2 ? 0u : x[i ^ 1]));
    }
  }
}

// Global memory a workgroup owns (Buffer::workgroup_local: the tiles of a
// kernel past the LDS) is checked for races as the LDS is: each lane
// stores its element, lane 0 reads the one 64 lanes on (another wave's);
// without the s_barrier between, a fault, with it the value.
TEST_CASE("workgroup-local global memory: the race check of the LDS", "[lds][mutant]") {
  AMDGPU_REQUIRE_TOOLS();
  auto body = [](bool sync) {
    return std::string(kPrologue) + addr64(4, 4) + addr64(8, 6) + R"(
  %LD% v3, v[4:5], off
  s_waitcnt vmcnt(0)
  %ST% v[8:9], v3, off
  s_waitcnt vmcnt(0)
  %VSWAIT%
)" + (sync ? "  s_barrier\n" : "") + R"(
  v_cmp_eq_u32 %VCC%, 0, v0
  %SAVEEXEC% %M20%, %VCC%
  s_cbranch_execz .Ldone
  %LD% v10, v[8:9], off offset:256
  s_waitcnt vmcnt(0)
)" + addr64(12, 10) + R"(
  %ST% v[12:13], v10, off
.Ldone:
  s_endpgm
)";
  };
  for (const auto& c : kChips) {
    std::map<std::string, std::string> extra = {{"VSWAIT", c.gfx11 ? "s_waitcnt_vscnt null, 0x0" : "s_nop 0"}};
    const unsigned n = 128;
    std::vector<uint32_t> x(n), wl(n, 0), out(n, 0);
    for (unsigned i = 0; i < n; ++i) x[i] = 1000 + i;
    emu::LaunchSpec ls;
    ls.kernel = "wl";
    ls.block_x = n;
    ls.kernarg = Kernarg().ptr(x.data()).ptr(wl.data()).ptr(nullptr).ptr(out.data()).add(n).add(n).bytes;
    ls.buffers = {{x.data(), n * 4}, {wl.data(), n * 4, true}, {out.data(), n * 4}};
    emu::Stats st;
    std::string err;
    INFO(c.name << ": " << err);
    REQUIRE(load_kernel(c, "wl", body(true), KernelOpts{}, extra)->launch(ls, st, err));
    CHECK(out[0] == 1064u);
    CHECK_FALSE(load_kernel(c, "wl", body(false), KernelOpts{}, extra)->launch(ls, st, err));
    CHECK(err.find("workgroup memory race") != std::string::npos);
    // The same buffer not marked as the workgroup's: no check.
    ls.buffers[1].workgroup_local = false;
    CHECK(load_kernel(c, "wl", body(false), KernelOpts{}, extra)->launch(ls, st, err));
  }
}
