// The amdgpu backend on real kernels (the samples), for each chip:
// * the static checker (encoders/amdgpu/hazard_check.h) accepts what the
//   backend emits, and rejects it with one s_nop or one s_waitcnt deleted;
// * the linked object's check rejects a wave32 kernel whose descriptor
//   was flipped to say wave64;
// * a round trip: the instructions the linked .hsaco holds, disassembled
//   by the interpreter's reader, are the instructions ptoas emitted (every
//   sample).
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>

#include "amdgpu/code_object_reader.h"
#include "codegen.h"
#include "diag.h"
#include "frontend.h"
#include "branch_relax.h"
#include "hazard_check.h"
#include "opt.h"

using namespace ptoas;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Compiled {
  cg::ModuleCode code;
  std::vector<uint8_t> hsaco;
  std::string err;
};

// samples/<name>/<name>.pto compiled for amdgpu on `chip` at -O2.
bool compile(const std::string& name, const std::string& chip, Compiled& c) {
  std::string path = std::string(PTOAS_SOURCE_DIR) + "/samples/" + name + "/" + name + ".pto";
  SourceFile src(path, slurp(path));
  Diag diag(&src);
  Module m;
  FrontendOptions fo;
  if (!run_frontend(src, fo, m, diag)) {
    c.err = diag.text();
    return false;
  }
  const cg::Target& t = cg::target("amdgpu");
  opt::Options oo;
  oo.level = opt::Level(2);
  cg::CodegenOptions co;
  co.gpu_arch = chip;
  if (!opt::optimize(m, oo, cg::opt_target(t), diag) || !cg::compile_module(m, t, c.code, diag, co)) {
    c.err = diag.text();
    return false;
  }
  std::string bytes;
  if (!cg::write_object(m, c.code, bytes, c.err)) return false;
  c.hsaco.assign(bytes.begin(), bytes.end());
  return true;
}

// The instruction lines of a body (no labels, no .loc).
std::vector<std::string> instructions(const std::string& body) {
  std::vector<std::string> out;
  std::istringstream in(body);
  for (std::string l; std::getline(in, l);) {
    size_t b = l.find_first_not_of(' ');
    if (b == std::string::npos || l[b] == '.') continue;
    out.push_back(l.substr(b));
  }
  return out;
}

unsigned next_free(const cg::FuncCode& f, int k) {
  // The kernel's register counts, as the target note carries them.
  std::istringstream in(f.target_note);
  std::string chip;
  unsigned kernarg = 0, lds = 0, v = 0, s = 0;
  in >> chip >> kernarg >> lds >> v >> s;
  return k == 0 ? v : s;
}

const char* const kChips[] = {"gfx942", "gfx90a", "gfx1100"};

}  // namespace

TEST_CASE("the checker accepts the samples and catches a removed s_waitcnt") {
  for (const char* chip : kChips) {
    for (const char* name : {"softmax", "vadd", "rmsnorm"}) {
      Compiled c;
      INFO(chip << " " << name);
      bool ok = compile(name, chip, c);
      INFO(c.err);
      REQUIRE(ok);
      const cg::FuncCode& f = c.code.funcs.at(0);
      const cg::amdgpu::Chip& ch = *cg::amdgpu::find_chip(chip);
      std::string err;
      CHECK(cg::amdgpu::check_hazards(ch, f.text, next_free(f, 0), next_free(f, 1), err));
      // Every s_waitcnt the backend put before a use is needed: removing
      // any one of them (the ones naming a counter) must fail the check.
      size_t from = 0, tried = 0;
      while ((from = f.text.find("  s_waitcnt vmcnt", from)) != std::string::npos && tried < 8) {
        std::string cut = f.text.substr(0, from) + f.text.substr(f.text.find('\n', from) + 1);
        INFO("removed the s_waitcnt at byte " << from);
        CHECK_FALSE(cg::amdgpu::check_hazards(ch, cut, next_free(f, 0), next_free(f, 1), err));
        ++from, ++tried;
      }
      CHECK(tried > 0);
    }
  }
}

TEST_CASE("the checker catches a removed hazard s_nop on gfx942") {
  Compiled c;
  REQUIRE(compile("softmax", "gfx942", c));
  const cg::FuncCode& f = c.code.funcs.at(0);
  const cg::amdgpu::Chip& ch = *cg::amdgpu::find_chip("gfx942");
  std::string err;
  REQUIRE(cg::amdgpu::check_hazards(ch, f.text, next_free(f, 0), next_free(f, 1), err));
  size_t from = 0, tried = 0;
  while ((from = f.text.find("  s_nop", from)) != std::string::npos && tried < 8) {
    std::string cut = f.text.substr(0, from) + f.text.substr(f.text.find('\n', from) + 1);
    CHECK_FALSE(cg::amdgpu::check_hazards(ch, cut, next_free(f, 0), next_free(f, 1), err));
    CHECK(err.find("wait states") != std::string::npos);
    ++from, ++tried;
  }
  CHECK(tried > 0);
  // Registers past the counts the descriptor gets are caught too.
  CHECK_FALSE(cg::amdgpu::check_hazards(ch, f.text, 2, next_free(f, 1), err));
}

TEST_CASE("a wave32 kernel whose descriptor says wave64 is caught") {
  Compiled c;
  bool ok = compile("vadd", "gfx1100", c);
  INFO(c.err);
  REQUIRE(ok);
  amdgpu_emu::CodeObject co;
  std::string err;
  REQUIRE(amdgpu_emu::read_code_object(c.hsaco, co, err));
  REQUIRE(co.kernels.size() == 1);
  cg::amdgpu::CodeObjectInput in;
  in.chip = cg::amdgpu::find_chip("gfx1100");
  cg::amdgpu::KernelCode k;
  k.name = co.kernels[0].name;
  std::istringstream note(c.code.funcs[0].target_note);
  std::string chip;
  note >> chip >> k.kernarg_size >> k.lds_bytes >> k.next_free_vgpr >> k.next_free_sgpr;
  in.kernels.push_back(k);
  REQUIRE(cg::amdgpu::check_code_object(in, c.hsaco, err));
  // Clear ENABLE_WAVEFRONT_SIZE32 (kernel_code_properties bit 10) in the
  // descriptor's bytes.
  // The descriptor's place in the file: the one 64-byte window holding
  // its fields.
  const auto& kd = co.kernels[0].kd;
  auto u32 = [&](size_t o) { return uint32_t(c.hsaco[o]) | c.hsaco[o + 1] << 8 | c.hsaco[o + 2] << 16 | uint32_t(c.hsaco[o + 3]) << 24; };
  size_t at = SIZE_MAX;
  for (size_t o = 0; o + 64 <= c.hsaco.size(); o += 4)
    if (u32(o) == kd.group_segment_fixed_size && u32(o + 8) == kd.kernarg_size && u32(o + 48) == kd.rsrc1 &&
        u32(o + 52) == kd.rsrc2 && (c.hsaco[o + 56] | c.hsaco[o + 57] << 8) == kd.code_properties)
      at = o;
  REQUIRE(at != SIZE_MAX);
  REQUIRE(kd.wave32());
  std::vector<uint8_t> bad = c.hsaco;
  bad[at + 57] &= uint8_t(~(1u << 2));
  CHECK_FALSE(cg::amdgpu::check_code_object(in, bad, err));
  CHECK(err.find("wave64") != std::string::npos);
}

TEST_CASE("round trip: the linked object holds exactly the emitted instructions") {
  for (const char* chip : kChips) {
    for (const char* name : {"vadd", "softmax", "layernorm", "rmsnorm", "flash_merge", "fused_chain", "gemm_f32",
                             "gemm_bf16_bias", "gemm_i8", "rope", "silu_swiglu", "attention"}) {
      INFO(chip << " " << name);
      Compiled c;
      bool ok = compile(name, chip, c);
      INFO(c.err);
      REQUIRE(ok);
      amdgpu_emu::CodeObject co;
      std::string err;
      REQUIRE(amdgpu_emu::read_code_object(c.hsaco, co, err));
      REQUIRE(co.kernels.size() == 1);
      std::vector<std::string> want = instructions(c.code.funcs[0].text);
      const auto& got = co.kernels[0].insts;
      REQUIRE(got.size() >= want.size());
      // Branch targets print as addresses: compare the mnemonics there,
      // whole instructions elsewhere (LLVM's text, e64/e32 suffixes
      // dropped by the comparison of the first word's stem).
      size_t same = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        std::string w = want[i].substr(0, want[i].find(' '));
        std::string g = got[i].text.substr(0, got[i].text.find_first_of(" \t"));
        auto stem = [](std::string s) {
          for (const char* suf : {"_e32", "_e64"})
            if (s.size() > 4 && s.compare(s.size() - 4, 4, suf) == 0) s.resize(s.size() - 4);
          return s;
        };
        if (stem(w) == stem(g)) ++same;
        else FAIL_CHECK("instruction " << i << ": emitted '" << want[i] << "', the object holds '" << got[i].text << "'");
      }
      CHECK(same == want.size());
    }
  }
}

TEST_CASE("row reductions use DPP, and the checker catches a DPP read too soon after a VALU write") {
  for (const char* chip : kChips) {
    Compiled c;
    INFO(chip);
    REQUIRE(compile("softmax", chip, c));
    const cg::FuncCode& f = c.code.funcs.at(0);
    const cg::amdgpu::Chip& ch = *cg::amdgpu::find_chip(chip);
    CHECK(f.text.find("v_mov_b32_dpp") != std::string::npos);
    std::string err;
    REQUIRE(cg::amdgpu::check_hazards(ch, f.text, next_free(f, 0), next_free(f, 1), err));
    if (ch.gen != 9) continue;  // gfx11 interlocks DPP reads
    // Each s_nop right before a DPP move is the VALU -> DPP distance.
    size_t from = 0, tried = 0;
    while ((from = f.text.find("  s_nop", from)) != std::string::npos) {
      size_t next = f.text.find('\n', from) + 1;
      if (f.text.compare(next, 15, "  v_mov_b32_dpp") == 0) {
        std::string cut = f.text.substr(0, from) + f.text.substr(next);
        CHECK_FALSE(cg::amdgpu::check_hazards(ch, cut, next_free(f, 0), next_free(f, 1), err));
        CHECK(err.find("DPP reads") != std::string::npos);
        ++tried;
      }
      from = next;
    }
    CHECK(tried > 0);
  }
}

TEST_CASE("tiles past the LDS live in global memory: attention on every chip") {
  for (const char* chip : kChips) {
    Compiled c;
    INFO(chip);
    bool ok = compile("attention", chip, c);
    INFO(c.err);
    REQUIRE(ok);
    const cg::FuncCode& f = c.code.funcs.at(0);
    const cg::amdgpu::Chip& ch = *cg::amdgpu::find_chip(chip);
    std::string err;
    CHECK(cg::amdgpu::check_hazards(ch, f.text, next_free(f, 0), next_free(f, 1), err));
    cg::amdgpu::TileScratch ts = cg::amdgpu::tile_scratch(f.target_note);
    CHECK(ts.bytes_per_workgroup >= 64u * 1024);  // more than any chip's LDS
    CHECK(ts.kernarg_off > 0);
    // No LDS access is left; the workgroup's slice is base + id * bytes.
    CHECK(f.text.find("ds_read") == std::string::npos);
    CHECK(f.text.find("ds_load") == std::string::npos);
    CHECK(f.text.find("ds_write") == std::string::npos);
    CHECK(f.text.find("ds_store") == std::string::npos);
    CHECK(f.text.find("s_mul_hi_u32") != std::string::npos);
    amdgpu_emu::CodeObject co;
    REQUIRE(amdgpu_emu::read_code_object(c.hsaco, co, err));
    REQUIRE(co.kernels.size() == 1);
    const auto& kd = co.kernels[0].kd;
    CHECK(kd.group_segment_fixed_size == 0);
    CHECK(kd.kernarg_size == ts.kernarg_off + 8);
    // gfx11: CU mode (rsrc1 bit 29 clear), so the workgroup shares one L0.
    if (ch.gen >= 11) CHECK((kd.rsrc1 >> 29 & 1) == 0);
  }
  // A kernel that fits keeps the LDS and gfx11's default WGP mode.
  Compiled c;
  REQUIRE(compile("gemm_f32", "gfx1100", c));
  CHECK(cg::amdgpu::tile_scratch(c.code.funcs.at(0).target_note).bytes_per_workgroup == 0);
  amdgpu_emu::CodeObject co;
  std::string err;
  REQUIRE(amdgpu_emu::read_code_object(c.hsaco, co, err));
  CHECK(co.kernels[0].kd.group_segment_fixed_size > 0);
  CHECK((co.kernels[0].kd.rsrc1 >> 29 & 1) == 1);
}

TEST_CASE("bf16 tmatmul runs on MFMA / WMMA, and the checker catches each MFMA distance cut") {
  for (const char* chip : kChips) {
    Compiled c;
    INFO(chip);
    REQUIRE(compile("gemm_bf16_bias", chip, c));
    const cg::FuncCode& f = c.code.funcs.at(0);
    const cg::amdgpu::Chip& ch = *cg::amdgpu::find_chip(chip);
    CHECK(f.text.find(ch.gen >= 11 ? "v_wmma_f32_16x16x16_bf16" : "v_mfma_f32_16x16x16") != std::string::npos);
    std::string err;
    REQUIRE(cg::amdgpu::check_hazards(ch, f.text, next_free(f, 0), next_free(f, 1), err));
    if (ch.gen != 9) continue;
    // The s_nops right before and right after each MFMA: cutting one to
    // s_nop 0 leaves too few wait states.
    size_t from = 0, tried = 0;
    while ((from = f.text.find("  v_mfma", from)) != std::string::npos) {
      size_t before = f.text.rfind("  s_nop", from), line_before = f.text.rfind('\n', from - 1);
      size_t after = f.text.find('\n', from) + 1;
      for (size_t at : {before, after}) {
        if (at == std::string::npos || f.text.compare(at, 7, "  s_nop") != 0) continue;
        if (at == before && f.text.rfind('\n', line_before - 1) + 1 != at) continue;  // not the line before
        std::string cut = f.text.substr(0, at) + "  s_nop 0" + f.text.substr(f.text.find('\n', at));
        INFO("cut the s_nop at byte " << at);
        CHECK_FALSE(cg::amdgpu::check_hazards(ch, cut, next_free(f, 0), next_free(f, 1), err));
        CHECK(err.find("MFMA") != std::string::npos);
        ++tried;
      }
      from = after;
    }
    CHECK(tried >= 2);
  }
}

TEST_CASE("branches past 128 KiB become long; the interpreter follows them") {
  const cg::amdgpu::Chip& ch = *cg::amdgpu::find_chip("gfx942");
  // s_cbranch_execz over n VALU moves to the label, then the store of v1.
  auto make = [](unsigned n, unsigned used_s) {
    cg::amdgpu::MFunc f;
    f.used_s = used_s;
    auto op = [](const char* name, std::vector<std::string> ops) {
      cg::amdgpu::MInst mi;
      mi.op = name;
      for (auto& t : ops) {
        cg::amdgpu::MOp o;
        o.text = t;
        mi.ops.push_back(o);
      }
      return mi;
    };
    cg::amdgpu::MInst br = op("s_cbranch_execz", {});
    br.label = 0;
    f.code.push_back(br);
    for (unsigned i = 0; i < n; ++i) f.code.push_back(op("v_mov_b32", {"v1", "v2"}));
    cg::amdgpu::MInst l;
    l.kind = cg::amdgpu::MInst::Label;
    l.label = 0;
    f.code.push_back(l);
    f.code.push_back(op("s_endpgm", {}));
    return f;
  };
  std::string why;
  auto near = make(100, 10);
  REQUIRE(cg::amdgpu::relax_branches(ch, near, "t", why));
  CHECK(near.code.size() == 103);
  auto far = make(12000, 10);  // 12000 x 12 bytes at most: may pass 128 KiB
  REQUIRE(cg::amdgpu::relax_branches(ch, far, "t", why));
  std::string text = cg::amdgpu::print_body(far, "t");
  CHECK(text.find("s_cbranch_execnz .Lt_") != std::string::npos);
  CHECK(text.find("s_setpc_b64 s[10:11]") != std::string::npos);
  CHECK(far.used_s == 12);
  std::string err;
  CHECK(cg::amdgpu::check_hazards(ch, text, 3, far.used_s, err));
  // No SGPR pair left: the caller must keep the top pair free.
  auto full = make(12000, ch.max_sgprs);
  CHECK_FALSE(cg::amdgpu::relax_branches(ch, full, "t", why));
  full.reserved_top_s = 2;
  CHECK(cg::amdgpu::relax_branches(ch, full, "t", why));
}

TEST_CASE("the checker holds hand-written v_readlane and v_div_fmas to their distances") {
  for (const char* chip : {"gfx942", "gfx90a"}) {
    const cg::amdgpu::Chip& ch = *cg::amdgpu::find_chip(chip);
    std::string err;
    INFO(chip);
    const std::string sel = "  v_readfirstlane_b32 s4, v1\n";
    CHECK_FALSE(cg::amdgpu::check_hazards(ch, sel + "  s_nop 2\n  v_readlane_b32 s5, v2, s4\n", 8, 8, err));
    CHECK(err.find("selects the lane") != std::string::npos);
    CHECK(cg::amdgpu::check_hazards(ch, sel + "  s_nop 3\n  v_readlane_b32 s5, v2, s4\n", 8, 8, err));
    const std::string cmp = "  v_cmp_lt_f32_e64 vcc, v1, v2\n";
    CHECK_FALSE(cg::amdgpu::check_hazards(ch, cmp + "  s_nop 2\n  v_div_fmas_f32 v3, v1, v2, v4\n", 8, 8, err));
    CHECK(err.find("v_div_fmas") != std::string::npos);
    CHECK(cg::amdgpu::check_hazards(ch, cmp + "  s_nop 3\n  v_div_fmas_f32 v3, v1, v2, v4\n", 8, 8, err));
  }
  const cg::amdgpu::Chip& g942 = *cg::amdgpu::find_chip("gfx942");
  std::string err;
  CHECK_FALSE(cg::amdgpu::check_hazards(g942, "  v_mov_b32 v2, v1\n  v_readlane_b32 s5, v2, 3\n", 8, 8, err));
  CHECK(cg::amdgpu::check_hazards(g942, "  v_mov_b32 v2, v1\n  s_nop 0\n  v_readlane_b32 s5, v2, 3\n", 8, 8, err));
}
