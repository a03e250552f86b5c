// The amdgpu target (docs/amdgpu_backend.md): the ptx generator's PTX for
// each function, decoded (ptoptx), selected into GCN instructions
// (isel*.cpp), allocated (regalloc.cpp), given its waits (waitcnt.cpp) and
// assembled and linked in-process into one code object (code_object.h).
#include <cstdio>
#include <memory>
#include <sstream>

#include "amdgpu/shape.h"
#include "branch_relax.h"
#include "code_object.h"
#include "hazard_check.h"
#include "codegen.h"
#include "isel.h"
#include "ptx/ptx.h"
#include "regalloc.h"
#include "waitcnt.h"

namespace ptoas::cg {

namespace amdgpu {

// code_object_link.cpp, in the programs that link ptoas_amdgpu_link.
__attribute__((weak)) bool link_code_object(const std::vector<uint8_t>& obj, std::vector<uint8_t>& hsaco,
                                            std::string& err);

namespace {

// The byte offset of the function's op at .pto line:col (the PTX's .loc),
// for a located refusal; the function itself when none matches.
uint32_t source_offset(const Module& m, InstId fn, uint32_t line, uint32_t col) {
  const Inst& f = m.inst(fn);
  if (!m.src || !line) return f.loc;
  uint32_t best = f.loc;
  std::vector<const Region*> todo{&m.region(f, 0)};
  while (!todo.empty()) {
    const Region* r = todo.back();
    todo.pop_back();
    for (unsigned i = 0; i < r->inst_count; ++i) {
      const Inst& in = m.inst(m.region_inst(*r, i));
      LineCol lc = m.src->line_col(in.loc);
      if (lc.line == line && lc.col == col) return in.loc;
      if (lc.line == line) best = in.loc;
      for (unsigned k = 0; k < in.n_regions; ++k) todo.push_back(&m.region(in, k));
    }
  }
  return best;
}

// The kernel's parameters as metadata args (pointers are global buffers).
std::vector<KernelArg> kernel_args(const Module& m, InstId fn, const ptx::Entry& e, const KernelAbi& abi) {
  std::vector<KernelArg> args;
  const Region& body = m.region(m.inst(fn), 0);
  for (size_t i = 0; i < e.param_offset.size(); ++i) {
    KernelArg a;
    a.name = e.param_name[i];
    a.offset = e.param_offset[i];
    a.size = e.param_bytes[i];
    bool ptr = i < body.arg_count && m.type_of(m.region_arg(body, unsigned(i))).kind == TypeKind::Ptr;
    a.value_kind = ptr ? "global_buffer" : "by_value";
    args.push_back(a);
  }
  args.push_back({"pto_block_count", abi.block_count_off, 4, "hidden_block_count_x"});
  if (abi.tile_scratch_bytes) args.push_back({"pto_tile_scratch", abi.tile_scratch_off, 8, "global_buffer"});
  return args;
}

// A function's kernel, carried from compile() to build_output() in its
// FuncCode::target_note (one line: the chip, the numbers, then one word per
// arg).
std::string encode_note(const Chip& c, const KernelCode& k) {
  std::ostringstream o;
  o << c.name << ' ' << k.kernarg_size << ' ' << k.lds_bytes << ' ' << k.next_free_vgpr << ' ' << k.next_free_sgpr << ' '
    << k.workgroup_size << ' ' << k.tile_scratch_bytes;
  for (const KernelArg& a : k.args) o << ' ' << a.name << ':' << a.offset << ':' << a.size << ':' << a.value_kind;
  return o.str();
}

// The chip and kernel a compiled function's note describes (null: none).
const Chip* decode_note(const FuncCode& f, KernelCode& k) {
  k = KernelCode{};
  k.name = f.name;
  k.body = f.text;
  std::istringstream in(f.target_note);
  std::string chip;
  in >> chip >> k.kernarg_size >> k.lds_bytes >> k.next_free_vgpr >> k.next_free_sgpr >> k.workgroup_size >>
      k.tile_scratch_bytes;
  std::string w;
  while (in >> w) {
    KernelArg a;
    size_t p1 = w.find(':'), p2 = w.find(':', p1 + 1), p3 = w.find(':', p2 + 1);
    if (p3 == std::string::npos) continue;
    a.name = w.substr(0, p1);
    a.offset = uint32_t(std::stoul(w.substr(p1 + 1, p2 - p1 - 1)));
    a.size = uint32_t(std::stoul(w.substr(p2 + 1, p3 - p2 - 1)));
    a.value_kind = w.substr(p3 + 1);
    k.args.push_back(a);
  }
  return find_chip(chip);
}

const Chip* chip_for(const CodegenOptions& o, Diag& diag) {
  const Chip* c = o.gpu_arch.empty() ? &default_chip() : find_chip(o.gpu_arch);
  if (!c) diag.error_global("unknown --gpu-arch '" + std::string(o.gpu_arch) + "' for amdgpu (" + chip_names() + ")");
  return c;
}

// The SIMT lowering of fn: the ptx target's code for sm_80, parsed back
// (null after a diagnostic). Its refusals name this target: they are why
// amdgpu cannot run the op.
std::unique_ptr<ptx::Program> simt_ptx(const Module& m, InstId fn, const Target& t, const CodegenOptions& o,
                                       const Chip& chip, bool wave_mma, Diag& diag) {
  const Target& ptx_t = target("ptx");
  CodegenOptions po = o;
  po.gpu_arch = "sm_80";
  po.portable_simt = true;
  // What does not fit the LDS goes to global memory (isel.cpp,
  // tile_scratch_prologue), up to a bound.
  po.simt_shared_limit = kMaxTileScratch;
  po.simt_wave_mma = wave_mma ? chip.wave : 0;  // f16 / bf16 tmatmul on MFMA (wave64) or WMMA (wave32)
  std::string block = "a " + std::string(chip.name) + " workgroup";
  po.simt_block = block;
  FuncCode pf;
  if (!ptx_t.compile(m, fn, t, po, pf, diag)) return nullptr;
  ModuleCode pm{&ptx_t, {}, {}};
  pm.funcs.push_back(pf);
  Output ptx_out;
  std::string err;
  if (!build_output(m, pm, ptx_out, err)) {
    diag.error(m.inst(fn).loc, 0, "amdgpu: " + err);
    return nullptr;
  }
  std::unique_ptr<ptx::Program> prog = ptx::Program::parse(ptx_out.text, err, "ptx");
  if (!prog || prog->module().entries.size() != 1) {
    diag.error(m.inst(fn).loc, 0, "amdgpu: the PTX of this function does not decode: " + err + " [internal]");
    return nullptr;
  }
  return prog;
}

bool uses_wave_mma(const ptx::Entry& e) {
  for (const ptx::Inst& in : e.code)
    if (in.op == ptx::Op::Mma) return true;
  return false;
}

enum class Lowered : uint8_t { Ok, Failed, OutOfRegisters };

// PTX -> allocated, waited, relaxed machine code. A kernel too long for
// short branches whose SGPRs are all taken is allocated again with a pair
// kept free for the long ones.
Lowered lower_entry(const Module& m, InstId fn, const Chip& chip, const ptx::Module& xm, const ptx::Entry& e, MFunc& mf,
                    KernelAbi& abi, Diag& diag) {
  std::string why;
  std::string fname = "function @" + std::string(m.attr_word(m.inst(fn), "sym_name")) + " ";
  for (unsigned keep_pair = 0;; ++keep_pair) {
    IselError ie;
    mf = MFunc{};
    if (!select_entry(chip, xm, e, mf, abi, ie)) {
      uint32_t off = m.inst(fn).loc;
      if (ie.inst < e.code.size() && e.code[ie.inst].loc) {
        const ptx::Loc& l = xm.locs[e.code[ie.inst].loc - 1];
        off = source_offset(m, fn, l.line, l.col);
      }
      diag.error(off, 0, ie.msg + (ie.limit ? " on amdgpu [limit]" : " on amdgpu [unsupported-op]"));
      return Lowered::Failed;
    }
    mf.reserved_top_s = keep_pair ? 2 : 0;
    if (!allocate_registers(chip, mf, why)) {
      if (uses_wave_mma(e)) return Lowered::OutOfRegisters;
      diag.error(m.inst(fn).loc, 0, fname + why + " on amdgpu [limit]");
      return Lowered::Failed;
    }
    insert_waits(chip, mf);
    if (relax_branches(chip, mf, std::to_string(fn), why)) return Lowered::Ok;
    if (keep_pair) {
      diag.error(m.inst(fn).loc, 0, fname + why + " on amdgpu [internal]");
      return Lowered::Failed;
    }
  }
}

bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, FuncCode& out,
                      Diag& diag) {
  const Chip* chip = chip_for(o, diag);
  if (!chip) return false;
  MFunc mf;
  KernelAbi abi;
  std::unique_ptr<ptx::Program> prog;
  // The matrix op's fragments take registers; a kernel they push past the
  // VGPRs or SGPRs is lowered again with tmatmul as the fma loop.
  for (bool wave_mma : {true, false}) {
    prog = simt_ptx(m, fn, t, o, *chip, wave_mma, diag);
    if (!prog) return false;
    Lowered r = lower_entry(m, fn, *chip, prog->module(), prog->module().entries[0], mf, abi, diag);
    if (r == Lowered::Failed) return false;
    if (r == Lowered::Ok) break;
  }
  const ptx::Entry& e = prog->module().entries[0];
  out.name = std::string(m.attr_word(m.inst(fn), "sym_name"));
  out.global = m.attr_word(m.inst(fn), "sym_visibility") != "private";
  out.text = print_body(mf, std::to_string(fn));
  std::string err;
  if (!check_hazards(*chip, out.text, std::max(1u, mf.used_v), std::max(1u, mf.used_s), err)) {
    diag.error(m.inst(fn).loc, 0, err + " [internal]");
    return false;
  }
  KernelCode k;
  k.kernarg_size = abi.kernarg_bytes;
  k.lds_bytes = abi.lds_bytes;
  k.next_free_vgpr = std::max(1u, mf.used_v);
  k.next_free_sgpr = std::max(1u, mf.used_s);
  k.workgroup_size = abi.workgroup;
  k.tile_scratch_bytes = abi.tile_scratch_bytes;
  k.args = kernel_args(m, fn, e, abi);
  out.target_note = encode_note(*chip, k);
  return true;
}

CodeObjectInput object_input(const Module& m, const ModuleCode& code) {
  CodeObjectInput in;
  in.chip = &default_chip();
  in.source_name = m.src ? m.src->name() : std::string();
  for (const FuncCode& f : code.funcs) {
    KernelCode k;
    if (const Chip* c = decode_note(f, k)) in.chip = c;
    in.kernels.push_back(std::move(k));
  }
  return in;
}

bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err) {
  out = Output{.kind = Output::Kind::Bytes};
  CodeObjectInput in = object_input(m, code);
  std::vector<uint8_t> obj;
  if (!assemble_code_object(in, obj, err)) return false;
  if (!&link_code_object) {
    err = "this program was built without the AMDGPU linker (lld; ptoas, ptorun and the amdgpu tests have it)";
    return false;
  }
  return link_code_object(obj, out.bytes, err) && check_code_object(in, out.bytes, err);
}

std::string listing(const Module& m, const ModuleCode& code) { return code_object_asm(object_input(m, code)); }

// --stats: registers, LDS and the waves per SIMD they allow
// (notes/GPU_NOTES.md AMDGPU §5: gfx9 allocates VGPRs in 8s from 512 per
// SIMD lane, at most 8 waves; gfx11 wave32 in 24s from 1536, at most 16),
// and the LDS bound: workgroups per CU (64 KiB of LDS) times its waves,
// over 4 SIMDs.
std::string code_stats(const FuncCode& f) {
  KernelCode k;
  const Chip* c = decode_note(f, k);
  if (!c) return {};
  unsigned v = k.next_free_vgpr, by_vgpr = 0;
  if (c->gen == 9) by_vgpr = std::min(8u, 512u / ((v + 7) / 8 * 8));
  else by_vgpr = std::min(16u, 1536u / ((v + 23) / 24 * 24));
  unsigned waves_per_wg = (k.workgroup_size + c->wave - 1) / c->wave;
  unsigned by_lds = k.lds_bytes ? std::max(1u, (64u * 1024 / k.lds_bytes) * waves_per_wg / 4) : by_vgpr;
  char line[320];
  std::snprintf(line, sizeof line,
                "amdgpu: @%s (%s, wave%u): %u VGPRs, 0 AGPRs, %u SGPRs, LDS %u bytes, kernarg %u bytes; waves per SIMD: "
                "%u by VGPRs, %u by LDS\n",
                k.name.c_str(), std::string(c->name).c_str(), c->wave, v, k.next_free_sgpr, k.lds_bytes,
                k.kernarg_size, by_vgpr, std::min(by_vgpr, by_lds));
  std::string out = line;
  if (k.tile_scratch_bytes)
    out += "amdgpu: @" + k.name + ": its tiles need more than the " + std::to_string(c->lds_bytes / 1024) +
           " KiB of LDS: they live in global memory, " + std::to_string(k.tile_scratch_bytes) + " bytes per workgroup\n";
  return out;
}

}  // namespace

TileScratch tile_scratch(const std::string& target_note) {
  FuncCode f;
  f.target_note = target_note;
  KernelCode k;
  TileScratch t;
  if (!decode_note(f, k)) return t;
  t.bytes_per_workgroup = k.tile_scratch_bytes;
  for (const KernelArg& a : k.args)
    if (a.name == "pto_tile_scratch") t.kernarg_off = a.offset;
  return t;
}

}  // namespace amdgpu

namespace {

constexpr Target kAmdgpu = with_backend(amdgpu::kShape, {
                                                            .compile = amdgpu::compile_function,
                                                            .build_output = amdgpu::build_output,
                                                            .listing = amdgpu::listing,
                                                            .code_stats = amdgpu::code_stats,
                                                        });
static_assert(hooks_of(kAmdgpu) == amdgpu::kHooks,
              "amdgpu/shape.h's kHooks must name exactly the functions kAmdgpu has");

}  // namespace

std::vector<const Target*> amdgpu_targets() { return {&kAmdgpu}; }

}  // namespace ptoas::cg
