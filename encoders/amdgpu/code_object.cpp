// The AMDGPU code-object writer (code_object.h): the assembler text with
// the descriptor directives and the metadata YAML, and LLVM MC over it
// (the link is code_object_link.cpp). GPU_NOTES AMDGPU §2 (descriptor), §3 (metadata) and §4
// (the MC sequence) have the facts behind each choice.
#include "code_object.h"

#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <mutex>

#include "mc/mc.h"

extern "C" void LLVMInitializeAMDGPUAsmParser();

namespace ptoas::cg::amdgpu {

namespace {

// ---------------------------------------------------------------------------
// The text.

std::string target_id(const Chip& c) { return "amdgcn-amd-amdhsa--" + std::string(c.name); }

// A string literal for the assembler (.file names come from the command line).
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') q += '\\';
    q += ch;
  }
  return q + "\"";
}

// A YAML scalar: single quotes keep names that look like numbers or hold
// ':' strings, and '' is YAML's only escape inside them.
std::string yaml_str(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("''") : std::string(1, ch);
  return q + "'";
}

// The SGPRs the hardware allocates beyond next_free_sgpr, the way LLVM
// counts them for the descriptor (AMDGPU::IsaInfo::getNumExtraSGPRs): VCC
// 2, XNACK 4 (gfx9 with xnack "any"), flat scratch 6 (always reserved with
// architected flat scratch on gfx940); the largest wins, gfx10+ has only VCC.
unsigned extra_sgprs(const Chip& c, bool uses_vcc) {
  if (c.gen >= 10) return uses_vcc ? 2 : 0;
  return c.gfx940 ? 6 : 4;
}

unsigned align4(unsigned v) { return (v + 3) & ~3u; }

void emit_descriptor(std::string& s, const Chip& c, const KernelCode& k) {
  const bool gfx9 = c.gen == 9;
  auto d = [&s](const char* name, uint64_t v) { s += "  .amdhsa_" + std::string(name) + " " + std::to_string(v) + "\n"; };
  s += ".p2align 6\n.amdhsa_kernel " + k.name + "\n";
  d("group_segment_fixed_size", k.lds_bytes);
  d("private_segment_fixed_size", 0);
  d("kernarg_size", k.kernarg_size);
  // Only the kernarg pointer (s[0:1]); gfx1100 pads the count to 15 for its
  // wave32 user-SGPR init bug, so the workgroup id lands in chip.wgid_sgpr().
  d("user_sgpr_count", c.user_sgprs);
  // gfx90a would default to a 4-SGPR private segment buffer ahead of the
  // kernarg pointer; gfx940 and gfx11 have architected flat scratch and
  // reject both directives below.
  if (gfx9 && !c.gfx940) d("user_sgpr_private_segment_buffer", 0);
  d("user_sgpr_kernarg_segment_ptr", 1);
  d("system_sgpr_workgroup_id_x", 1);
  d("system_vgpr_workitem_id", 0);
  d("next_free_vgpr", std::max(1u, k.next_free_vgpr));
  d("next_free_sgpr", std::max(1u, k.next_free_sgpr));
  // No AGPRs: the accumulators would start right after the arch VGPRs.
  if (gfx9) d("accum_offset", std::max(4u, align4(k.next_free_vgpr)));
  d("reserve_vcc", k.uses_vcc ? 1 : 0);
  if (gfx9 && !c.gfx940) d("reserve_flat_scratch", 0);
  // The parser insists this equal the target id's xnack setting ("any" on
  // gfx9, unsupported on gfx11), so it only documents the SGPR count.
  if (gfx9) d("reserve_xnack_mask", 1);
  d("float_denorm_mode_32", 3);
  d("float_denorm_mode_16_64", 3);
  d("ieee_mode", 1);
  d("dx10_clamp", 0);
  // LLVM 16 left the wave32 bit clear unless told (GPU_NOTES AMDGPU §2).
  if (c.wave == 32) d("wavefront_size32", 1);
  // Tiles in global memory: in WGP mode a workgroup's waves may sit on
  // both CUs of a WGP, whose L0 caches are not coherent with each other,
  // so what one wave stored before s_barrier could be stale in another's
  // L0. CU mode keeps the workgroup on one CU (one L0).
  if (c.gen >= 10 && k.tile_scratch_bytes) d("workgroup_processor_mode", 0);
  s += ".end_amdhsa_kernel\n";
}

void emit_metadata(std::string& s, const Chip& c, const std::vector<KernelCode>& kernels) {
  s += ".amdgpu_metadata\n---\n";
  s += "amdhsa.version:\n  - 1\n  - 2\n";
  s += "amdhsa.target: " + target_id(c) + "\n";
  s += "amdhsa.kernels:\n";
  for (const KernelCode& k : kernels) {
    auto f = [&s](const char* key, const std::string& v) { s += "    ." + std::string(key) + ": " + v + "\n"; };
    auto n = [&f](const char* key, uint64_t v) { f(key, std::to_string(v)); };
    s += "  - .name: " + yaml_str(k.name) + "\n";
    f("symbol", yaml_str(k.name + ".kd"));
    n("kernarg_segment_size", k.kernarg_size);
    n("kernarg_segment_align", 8);
    n("group_segment_fixed_size", k.lds_bytes);
    n("private_segment_fixed_size", 0);
    n("wavefront_size", c.wave);
    n("sgpr_count", std::max(1u, k.next_free_sgpr) + extra_sgprs(c, k.uses_vcc));
    n("vgpr_count", std::max(1u, k.next_free_vgpr));
    n("max_flat_workgroup_size", k.workgroup_size);
    if (k.args.empty()) continue;
    s += "    .args:\n";
    for (const KernelArg& a : k.args) {
      s += "      - .offset: " + std::to_string(a.offset) + "\n";
      s += "        .size: " + std::to_string(a.size) + "\n";
      s += "        .value_kind: " + a.value_kind + "\n";
      if (!a.name.empty()) s += "        .name: " + yaml_str(a.name) + "\n";
      if (a.value_kind == "global_buffer") s += "        .address_space: global\n";
    }
  }
  s += "...\n.end_amdgpu_metadata\n";
}

}  // namespace

std::string code_object_asm(const CodeObjectInput& in) {
  const Chip& c = *in.chip;
  std::string s = ".amdgcn_target \"" + target_id(c) + "\"\n.amdhsa_code_object_version 5\n";
  // File 1 of the line table: the bodies' .loc lines name it.
  if (!in.source_name.empty()) s += ".file 1 " + quoted(in.source_name) + "\n";
  s += ".text\n";
  for (const KernelCode& k : in.kernels) {
    // 256-byte entry alignment, as LLVM's code generator gives kernels.
    s += ".globl " + k.name + "\n.p2align 8\n.type " + k.name + ",@function\n" + k.name + ":\n";
    s += k.body;
    if (!k.body.empty() && k.body.back() != '\n') s += '\n';
    s += ".size " + k.name + ", .-" + k.name + "\n";
  }
  // LLVM's code generator ends .text the same way (AMDGPUAsmPrinter::
  // emitEndOfAsmFile): the instruction prefetcher reads past the last
  // instruction, up to three cache lines (sixteen on gfx90a/gfx940), so
  // that span holds harmless words, not whatever the loader put next.
  if (c.gen == 9)
    s += ".p2alignl 6, 0xbf800000\n.fill 256, 4, 0xbf800000\n";  // s_nop 0, 64-byte lines
  else
    s += ".p2alignl 7, 0xbf9f0000\n.fill 96, 4, 0xbf9f0000\n";  // s_code_end, 128-byte lines
  s += ".rodata\n";
  for (const KernelCode& k : in.kernels) emit_descriptor(s, c, k);
  emit_metadata(s, c, in.kernels);
  return s;
}

namespace {

// ---------------------------------------------------------------------------
// Assembling.

// The relocatable object of `text` (LLVM MC, AMDGPU ELF streamer); false
// with every diagnostic, each with its line of `text`.
bool assemble(const Chip& chip, const std::string& text, llvm::SmallVectorImpl<char>& obj, std::string& err) {
  // The MC layer registers the target, its MC parts and the disassembler
  // once; the asm parser is ours to register, once per process.
  const mc::Mc* m = chip_mc(chip, &err);
  if (!m) return false;
  static std::once_flag parser_once;
  std::call_once(parser_once, [] { LLVMInitializeAMDGPUAsmParser(); });

  const llvm::Target& t = m->target();
  const llvm::MCSubtargetInfo& sti = m->subtarget();
  const llvm::MCRegisterInfo& mri = m->reg_info();
  const llvm::MCInstrInfo& mii = m->instr_info();
  llvm::Triple triple(m->spec().triple);
  llvm::MCTargetOptions opts;
  std::unique_ptr<llvm::MCAsmInfo> mai(t.createMCAsmInfo(mri, triple.str(), opts));
  if (!mai) {
    err = "amdgpu: LLVM cannot set up the AMDGPU assembler";
    return false;
  }

  std::string diag;
  auto print = [&diag](const llvm::SMDiagnostic& d) {
    llvm::raw_string_ostream os(diag);
    d.print(nullptr, os, /*ShowColors=*/false);
  };
  llvm::SourceMgr sm;
  sm.setDiagHandler([](const llvm::SMDiagnostic& d, void* p) { (*static_cast<decltype(print)*>(p))(d); }, &print);
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "amdgpu.s"), llvm::SMLoc());

  llvm::MCContext ctx(triple, mai.get(), &mri, &sti, &sm, &opts);
  // Errors found after parsing (fixups, the line table) come through the
  // context, not the parser: send them to the same text.
  ctx.setDiagnosticHandler([&print](const llvm::SMDiagnostic& d, bool, const llvm::SourceMgr&,
                                    std::vector<const llvm::MDNode*>&) { print(d); });
  std::unique_ptr<llvm::MCObjectFileInfo> mofi(t.createMCObjectFileInfo(ctx, /*PIC=*/false));
  ctx.setObjectFileInfo(mofi.get());

  llvm::raw_svector_ostream os(obj);
  std::unique_ptr<llvm::MCAsmBackend> mab(t.createMCAsmBackend(sti, mri, opts));
  std::unique_ptr<llvm::MCCodeEmitter> ce(t.createMCCodeEmitter(mii, ctx));
  if (!mab || !ce) {
    err = "amdgpu: LLVM cannot set up the AMDGPU object writer";
    return false;
  }
  std::unique_ptr<llvm::MCObjectWriter> ow = mab->createObjectWriter(os);
  // createMCObjectStreamer attaches the AMDGPU ELF target streamer, which
  // turns .amdhsa_kernel into the descriptor, .amdgpu_metadata into the
  // note (after LLVM's metadata verifier) and the target id into e_flags.
  std::unique_ptr<llvm::MCStreamer> out(
      t.createMCObjectStreamer(triple, ctx, std::move(mab), std::move(ow), std::move(ce), sti));
  std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(sm, ctx, *out, *mai));
  std::unique_ptr<llvm::MCTargetAsmParser> tap(t.createMCAsmParser(sti, *parser, mii, opts));
  if (!out || !tap) {
    err = "amdgpu: LLVM cannot set up the AMDGPU assembler";
    return false;
  }
  parser->setTargetParser(*tap);
  // Warnings alone do not fail; their text is dropped with the rest.
  if (parser->Run(/*NoInitialTextSection=*/false) || ctx.hadError()) {
    err = "amdgpu: the assembler rejected the code object text:\n" + diag;
    obj.clear();
    return false;
  }
  return true;
}

}  // namespace

bool assemble_code_object(const CodeObjectInput& in, std::vector<uint8_t>& obj, std::string& err) {
  obj.clear();
  if (!in.chip) {
    err = "amdgpu: no chip";
    return false;
  }
  if (in.kernels.empty()) {
    err = "amdgpu: a code object needs at least one kernel";
    return false;
  }
  llvm::SmallVector<char, 0> o;
  if (!assemble(*in.chip, code_object_asm(in), o, err)) return false;
  obj.assign(o.begin(), o.end());
  return true;
}

}  // namespace ptoas::cg::amdgpu
