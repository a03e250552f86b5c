// Test fixtures for the AMDGPU interpreter: hand-written kernels, spelled
// for each chip (%KEY% tokens become the gfx9 or gfx11 name), assembled
// and linked into a code object with llvm-mc and ld.lld at test time, and
// a runner for tables of one-instruction cases against host references.
#pragma once
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "amdgpu/amdgpu_emu.h"

namespace amdgpu_test {

namespace emu = ptoas::amdgpu_emu;

struct ChipCase {
  const char* name;
  unsigned wave;
  bool gfx11;
  bool gfx940;
};

inline const ChipCase kChips[] = {
    {"gfx942", 64, false, true},
    {"gfx90a", 64, false, false},
    {"gfx1100", 32, true, false},
};

// The gfx9 and gfx11 spellings of what the kernels use.
inline std::string spell(const ChipCase& c, const std::string& text,
                         const std::map<std::string, std::string>& extra = {}) {
  const bool w64 = c.wave == 64;
  std::map<std::string, std::string> m = {
      {"VADD", c.gfx11 ? "v_add_nc_u32" : "v_add_u32"},
      {"VSUB", c.gfx11 ? "v_sub_nc_u32" : "v_sub_u32"},
      {"ADDCO", "v_add_co_u32"},
      {"ADDC", c.gfx11 ? "v_add_co_ci_u32" : "v_addc_co_u32"},
      {"SUBCO", "v_sub_co_u32"},
      {"SUBB", c.gfx11 ? "v_sub_co_ci_u32" : "v_subb_co_u32"},
      {"VCC", w64 ? "vcc" : "vcc_lo"},
      {"EXEC", w64 ? "exec" : "exec_lo"},
      {"M4", w64 ? "s[4:5]" : "s4"},
      {"M20", w64 ? "s[20:21]" : "s20"},
      {"M22", w64 ? "s[22:23]" : "s22"},
      {"M24", w64 ? "s[24:25]" : "s24"},
      {"SMOV", w64 ? "s_mov_b64" : "s_mov_b32"},
      {"SAND", w64 ? "s_and_b64" : "s_and_b32"},
      {"SOR", w64 ? "s_or_b64" : "s_or_b32"},
      {"SXOR", w64 ? "s_xor_b64" : "s_xor_b32"},
      {"SNOT", w64 ? "s_not_b64" : "s_not_b32"},
      {"SANDN2", c.gfx11 ? (w64 ? "s_and_not1_b64" : "s_and_not1_b32") : "s_andn2_b64"},
      {"SAVEEXEC", w64 ? "s_and_saveexec_b64" : "s_and_saveexec_b32"},
      {"LD", c.gfx11 ? "global_load_b32" : "global_load_dword"},
      {"LD2", c.gfx11 ? "global_load_b64" : "global_load_dwordx2"},
      {"LD4", c.gfx11 ? "global_load_b128" : "global_load_dwordx4"},
      {"LDU8", c.gfx11 ? "global_load_u8" : "global_load_ubyte"},
      {"LDI8", c.gfx11 ? "global_load_i8" : "global_load_sbyte"},
      {"LDU16", c.gfx11 ? "global_load_u16" : "global_load_ushort"},
      {"LDI16", c.gfx11 ? "global_load_i16" : "global_load_sshort"},
      {"ST", c.gfx11 ? "global_store_b32" : "global_store_dword"},
      {"ST2", c.gfx11 ? "global_store_b64" : "global_store_dwordx2"},
      {"ST4", c.gfx11 ? "global_store_b128" : "global_store_dwordx4"},
      {"ST8", c.gfx11 ? "global_store_b8" : "global_store_byte"},
      {"ST16", c.gfx11 ? "global_store_b16" : "global_store_short"},
      {"ATOMADD", c.gfx11 ? "global_atomic_add_u32" : "global_atomic_add"},
      {"ATOMCAS", c.gfx11 ? "global_atomic_cmpswap_b32" : "global_atomic_cmpswap"},
      {"GLC", c.gfx940 ? "sc0" : "glc"},
      {"DSR", c.gfx11 ? "ds_load_b32" : "ds_read_b32"},
      {"DSR2", c.gfx11 ? "ds_load_b64" : "ds_read_b64"},
      {"DSR4", c.gfx11 ? "ds_load_b128" : "ds_read_b128"},
      {"DSRU8", c.gfx11 ? "ds_load_u8" : "ds_read_u8"},
      {"DSRI8", c.gfx11 ? "ds_load_i8" : "ds_read_i8"},
      {"DSRU16", c.gfx11 ? "ds_load_u16" : "ds_read_u16"},
      {"DSRI16", c.gfx11 ? "ds_load_i16" : "ds_read_i16"},
      {"DSW", c.gfx11 ? "ds_store_b32" : "ds_write_b32"},
      {"DSW2", c.gfx11 ? "ds_store_b64" : "ds_write_b64"},
      {"DSW4", c.gfx11 ? "ds_store_b128" : "ds_write_b128"},
      {"DSW8", c.gfx11 ? "ds_store_b8" : "ds_write_b8"},
      {"DSW16", c.gfx11 ? "ds_store_b16" : "ds_write_b16"},
      {"SLD", c.gfx11 ? "s_load_b32" : "s_load_dword"},
      {"SLD2", c.gfx11 ? "s_load_b64" : "s_load_dwordx2"},
      {"SLD4", c.gfx11 ? "s_load_b128" : "s_load_dwordx4"},
      {"WG", c.gfx11 ? "s15" : "s2"},
      {"FFBH", c.gfx11 ? "v_clz_i32_u32" : "v_ffbh_u32"},
      {"WAVE", w64 ? "64" : "32"},
      {"LOGWAVE", w64 ? "6" : "5"},
  };
  for (const auto& [k, v] : extra) m[k] = v;
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '%') {
      size_t e = text.find('%', i + 1);
      REQUIRE(e != std::string::npos);
      std::string key = text.substr(i + 1, e - i - 1);
      auto it = m.find(key);
      INFO("unknown spelling key %" << key << "%");
      REQUIRE(it != m.end());
      out += it->second;
      i = e + 1;
    } else {
      out += text[i++];
    }
  }
  return out;
}

#ifndef AMDGPU_LLVM_MC
#define AMDGPU_LLVM_MC ""
#endif
#ifndef AMDGPU_LD_LLD
#define AMDGPU_LD_LLD ""
#endif

inline bool tools_present() {
  return std::strlen(AMDGPU_LLVM_MC) && std::strlen(AMDGPU_LD_LLD) && std::filesystem::exists(AMDGPU_LLVM_MC) &&
         std::filesystem::exists(AMDGPU_LD_LLD);
}

#define AMDGPU_REQUIRE_TOOLS()                                                                  \
  do {                                                                                         \
    if (!::amdgpu_test::tools_present()) {                                                     \
      WARN("skipped: llvm-mc-19 and ld.lld-19 are needed to assemble the test kernels");      \
      return;                                                                                  \
    }                                                                                          \
  } while (0)

struct KernelOpts {
  unsigned lds = 0;
  unsigned vgprs = 64;
  unsigned sgprs = 48;
};

// A scratch directory for the process, removed at exit.
inline const std::filesystem::path& scratch() {
  struct Dir {
    std::filesystem::path p;
    Dir() {
      char t[] = "/tmp/amdgpu_interp_XXXXXX";
      p = mkdtemp(t) ? t : "/tmp";
    }
    ~Dir() {
      std::error_code ec;
      if (p != "/tmp") std::filesystem::remove_all(p, ec);
    }
  };
  static Dir d;
  return d.p;
}

// The .s text of one kernel `name` with `body` (already spelled).
inline std::string kernel_source(const ChipCase& c, const std::string& name, const std::string& body,
                                 const KernelOpts& o) {
  std::ostringstream s;
  s << ".text\n.globl " << name << "\n.p2align 8\n.type " << name << ",@function\n" << name << ":\n" << body
    << "\n.L" << name << "_end:\n.size " << name << ", .L" << name << "_end-" << name << "\n"
    << ".rodata\n.p2align 6\n.amdhsa_kernel " << name << "\n"
    << "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
    << "  .amdhsa_user_sgpr_count " << (c.gfx11 ? 15 : 2) << "\n"
    << "  .amdhsa_next_free_vgpr " << o.vgprs << "\n"
    << "  .amdhsa_next_free_sgpr " << o.sgprs << "\n";
  if (!c.gfx11) s << "  .amdhsa_accum_offset " << o.vgprs << "\n";
  if (c.gfx11) s << "  .amdhsa_wavefront_size32 1\n";
  s << "  .amdhsa_group_segment_fixed_size " << o.lds << "\n"
    << "  .amdhsa_system_sgpr_workgroup_id_x 1\n"
    << "  .amdhsa_float_denorm_mode_32 3\n"
    << "  .amdhsa_float_denorm_mode_16_64 3\n"
    << ".end_amdhsa_kernel\n";
  return s.str();
}

// Assembles and links; empty with `err` (the tools' output) on failure.
inline std::vector<uint8_t> build_hsaco(const ChipCase& c, const std::string& source, std::string& err) {
  static int counter = 0;
  std::string base = (scratch() / ("k" + std::to_string(counter++))).string();
  {
    std::ofstream f(base + ".s");
    f << source;
  }
  std::string attr = c.gfx11 ? " -mattr=+wavefrontsize32" : "";
  std::string cmd = std::string(AMDGPU_LLVM_MC) + " -triple=amdgcn-amd-amdhsa -mcpu=" + c.name + attr +
                    " -filetype=obj " + base + ".s -o " + base + ".o > " + base + ".log 2>&1 && " +
                    AMDGPU_LD_LLD + " -shared " + base + ".o -o " + base + ".hsaco >> " + base + ".log 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream lf(base + ".log");
    err = std::string(std::istreambuf_iterator<char>(lf), {});
    return {};
  }
  std::ifstream f(base + ".hsaco", std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// Spells `body` for the chip, builds and loads; fails the test on an error.
inline std::unique_ptr<emu::Program> load_kernel(const ChipCase& c, const std::string& name, const std::string& body,
                                                 const KernelOpts& o = {},
                                                 const std::map<std::string, std::string>& extra = {}) {
  std::string src = kernel_source(c, name, spell(c, body, extra), o);
  std::string err;
  auto bytes = build_hsaco(c, src, err);
  INFO(c.name << ": assembling failed:\n" << err << "\n" << src);
  REQUIRE(!bytes.empty());
  auto p = emu::Program::load(bytes, err);
  INFO(c.name << ": load failed: " << err);
  REQUIRE(p);
  return p;
}

// Kernarg bytes from values in order, each at its natural alignment.
struct Kernarg {
  std::vector<uint8_t> bytes;
  template <class T>
  Kernarg& add(T v) {
    size_t a = sizeof(T);
    bytes.resize((bytes.size() + a - 1) / a * a);
    size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &v, sizeof(T));
    return *this;
  }
  Kernarg& ptr(const void* p) { return add(uint64_t(reinterpret_cast<uintptr_t>(p))); }
};

// `v` rotated left by `k`: a second operand column from the first.
inline std::vector<uint64_t> rotate(const std::vector<uint64_t>& v, size_t k) {
  std::vector<uint64_t> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[i] = v[(i + k) % v.size()];
  return r;
}

// The prologue most kernels share: kernarg x@0 y@8 z@16 out@24 n@32
// block@36 into s[4:5], s[6:7], s[8:9], s[10:11], s12, s13; the global id
// in v1, its byte offset (x4) in v2.
inline const char* kPrologue = R"(
  %SLD4% s[4:7], s[0:1], 0x0
  %SLD4% s[8:11], s[0:1], 0x10
  %SLD2% s[12:13], s[0:1], 0x20
  s_waitcnt lgkmcnt(0)
  s_mul_i32 s14, %WG%, s13
  %VADD% v1, s14, v0
  v_lshlrev_b32 v2, 2, v1
)";

// v[D:D+1] = s[S:S+1] + v2 (a 64-bit address from a base and v2).
inline std::string addr64(unsigned d, unsigned s, unsigned off_vgpr = 2) {
  std::ostringstream o;
  o << "  v_mov_b32 v" << d + 1 << ", s" << s + 1 << "\n"
    << "  %ADDCO% v" << d << ", %VCC%, s" << s << ", v" << off_vgpr << "\n"
    << "  %ADDC% v" << d + 1 << ", %VCC%, 0, v" << d + 1 << ", %VCC%\n";
  return o.str();
}

// One case of an instruction table: `text` computes %D% from %X%, %Y%, %Z%
// (32-bit tables: v20 from v10, v11, v12; 64-bit: v[20:21] from v[10:11],
// v[12:13], v[14:15], with %XL%/%YL%/%ZL% the low halves). `ref` gives the
// expected bits from the inputs and the element index.
struct OpCase {
  std::string name;
  std::string text;
  std::function<uint64_t(uint64_t, uint64_t, uint64_t, unsigned)> ref;
  unsigned ulps = 0;     // tolerance for transcendental float results
  int fp = 0;            // 32 or 64: compare as a float of that width (any NaN matches any NaN)
};

// Runs every case over the inputs on one chip; returns false after
// reporting the first mismatches. `wide`: 64-bit elements.
bool run_table(const ChipCase& c, const std::vector<OpCase>& cases, bool wide, const std::vector<uint64_t>& xs,
               const std::vector<uint64_t>& ys, const std::vector<uint64_t>& zs);

}  // namespace amdgpu_test
