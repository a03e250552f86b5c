// sve_forms: every instruction form the SVE encoder uses is checked against
// LLVM's own assembler. A hand-built MCInst with a wrong operand encodes
// silently, so for each distinct instruction the encoder produced while
// compiling a broad set of kernels (the repository's .pto files: samples,
// tests/x86/kernels, tests/golden, tests/exec/cases; the
// generated ones of sve_forms_kernels.cpp and the x86 differential test's),
// the test prints it with LLVM's
// printer (Mc::print), assembles that text with the AArch64 asm parser and
// compares the 4 bytes with the encoder's word. Any mismatch or parse error
// fails with the opcode, our text and both words.
//
// The instructions come from a hook in Mc::encode (set_encode_observer, of
// the MC layer encoders/mc/mc.h). A
// form is an opcode with a pattern of operand kinds (register, immediate,
// and the special registers sp / xzr / wzr by name, since they print
// differently); up to kPerForm distinct operand sets of each are checked.
//
// Two mutants prove the check can fail: Mc::encode must refuse FADD_ZZZ_S
// with an X register, and the same MCInst encoded without that check (the
// silent wrong encoding) must fail the byte comparison.
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "codegen.h"
#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "opt.h"
#include "mc/mc_llvm.h"
#include "sve/a64_mc.h"
#include "sve_forms.h"
#include "target_diff_case.h"

extern "C" void LLVMInitializeAArch64AsmParser();

namespace {

using ptoas::cg::sve::Mc;
constexpr size_t kPerForm = 32;

// ---- what the encoder made ----

struct Seen {
  llvm::MCInst inst;
  uint32_t word;
};
struct Form {
  std::vector<Seen> seen;
  std::set<std::string> operand_sets;
};
std::map<std::string, Form> g_forms;  // key: "OPCODE(R,I,xzr,...)"
const Mc* g_mc = nullptr;

std::string form_key(const llvm::MCInst& mi) {
  const llvm::MCRegisterInfo& mri = g_mc->reg_info();
  std::string k(g_mc->opcode_name(mi.getOpcode()));
  k += "(";
  for (unsigned i = 0; i < mi.getNumOperands(); ++i) {
    const llvm::MCOperand& o = mi.getOperand(i);
    std::string kind = "?";
    if (o.isReg()) {
      std::string n = mri.getName(o.getReg());
      kind = (n == "SP" || n == "WSP" || n == "XZR" || n == "WZR") ? n : "R";
    } else if (o.isImm()) {
      kind = "I";
    } else if (o.isExpr()) {
      kind = "E";
    }
    k += (i ? "," : "") + kind;
  }
  return k + ")";
}

std::string operand_set(const llvm::MCInst& mi) {
  std::string s;
  for (unsigned i = 0; i < mi.getNumOperands(); ++i) {
    const llvm::MCOperand& o = mi.getOperand(i);
    s += o.isReg() ? "r" + std::to_string(o.getReg()) : o.isImm() ? "i" + std::to_string(o.getImm()) : "e";
    s += ",";
  }
  return s;
}

void observe(const Mc& mc, const llvm::MCInst& mi, std::span<const uint8_t> b) {
  if (&mc != g_mc || b.size() != 4) return;
  uint32_t word = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
  Form& f = g_forms[form_key(mi)];
  if (f.seen.size() >= kPerForm) return;
  if (f.operand_sets.insert(operand_set(mi)).second) f.seen.push_back({mi, word});
}

// ---- LLVM's assembler, one instruction at a time ----

// `mi` through a code emitter: false unless it is one word without fixups.
bool emit_word(const llvm::MCCodeEmitter& em, const llvm::MCInst& mi, const llvm::MCSubtargetInfo& sti, uint32_t& word) {
  llvm::SmallVector<char, 8> buf;
  llvm::SmallVector<llvm::MCFixup, 1> fixups;
  ptoas::mc::emit_unchecked(em, mi, sti, buf, fixups);
  if (buf.size() != 4 || !fixups.empty()) return false;
  word = uint32_t(uint8_t(buf[0])) | uint32_t(uint8_t(buf[1])) << 8 | uint32_t(uint8_t(buf[2])) << 16 |
         uint32_t(uint8_t(buf[3])) << 24;
  return true;
}

// Collects the instructions the asm parser emits. The object streamer
// would hand each to the same MCCodeEmitter (AArch64 instructions are
// never relaxed), so encoding them here is what llvm-mc writes.
class Capture : public llvm::MCStreamer {
 public:
  explicit Capture(llvm::MCContext& ctx) : MCStreamer(ctx) {}
  std::vector<llvm::MCInst> insts;
  void emitInstruction(const llvm::MCInst& mi, const llvm::MCSubtargetInfo&) override { insts.push_back(mi); }
  bool emitSymbolAttribute(llvm::MCSymbol*, llvm::MCSymbolAttr) override { return true; }
  void emitCommonSymbol(llvm::MCSymbol*, uint64_t, llvm::Align) override {}
  void emitZerofill(llvm::MCSection*, llvm::MCSymbol*, uint64_t, llvm::Align, llvm::SMLoc) override {}
};

class Assembler {
 public:
  bool init(std::string& err) {
    LLVMInitializeAArch64AsmParser();
    target_ = &g_mc->target();
    const ptoas::mc::McSpec& s = g_mc->spec();
    mri_.reset(target_->createMCRegInfo(s.triple));
    if (mri_) mai_.reset(target_->createMCAsmInfo(*mri_, s.triple, opts_));
    sti_.reset(target_->createMCSubtargetInfo(s.triple, s.cpu, s.features));
    mii_.reset(target_->createMCInstrInfo());
    if (!mri_ || !mai_ || !sti_ || !mii_) {
      err = "cannot set up LLVM's AArch64 assembler";
      return false;
    }
    return true;
  }

  // The word LLVM's assembler makes of `text`; false with its message. A
  // fresh context per instruction: an error leaves no state behind.
  bool assemble(const std::string& text, uint32_t& word, std::string& err) {
    llvm::SourceMgr sm;
    std::string diag;
    sm.setDiagHandler(
        [](const llvm::SMDiagnostic& d, void* out) {
          llvm::raw_string_ostream os(*static_cast<std::string*>(out));
          d.print(nullptr, os, false);
        },
        &diag);
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text + "\n"), llvm::SMLoc());
    llvm::MCContext ctx(llvm::Triple(g_mc->spec().triple), mai_.get(), mri_.get(), sti_.get(), &sm, &opts_);
    std::unique_ptr<llvm::MCObjectFileInfo> mofi(target_->createMCObjectFileInfo(ctx, /*PIC=*/true));
    ctx.setObjectFileInfo(mofi.get());
    Capture out(ctx);
    out.initSections(false, *sti_);
    std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(sm, ctx, out, *mai_));
    std::unique_ptr<llvm::MCTargetAsmParser> tap(target_->createMCAsmParser(*sti_, *parser, *mii_, opts_));
    if (!tap) {
      err = "no AArch64 asm parser";
      return false;
    }
    parser->setTargetParser(*tap);
    // NoFinalize: nothing to finish (and finishing twice is a known trap).
    bool failed = parser->Run(/*NoInitialTextSection=*/true, /*NoFinalize=*/true);
    if (failed || out.insts.size() != 1) {
      err = failed ? "does not assemble: " + trim(diag) : std::to_string(out.insts.size()) + " instructions";
      return false;
    }
    std::unique_ptr<llvm::MCCodeEmitter> emitter(target_->createMCCodeEmitter(*mii_, ctx));
    if (!emit_word(*emitter, out.insts[0], *sti_, word)) {
      err = "LLVM's assembler did not make one word without fixups";
      return false;
    }
    return true;
  }

 private:
  // The message of a diagnostic, without the source line and caret.
  static std::string trim(const std::string& s) { return s.substr(0, s.find('\n')); }
  const llvm::Target* target_ = nullptr;
  llvm::MCTargetOptions opts_;
  std::unique_ptr<llvm::MCRegisterInfo> mri_;
  std::unique_ptr<llvm::MCAsmInfo> mai_;
  std::unique_ptr<llvm::MCSubtargetInfo> sti_;
  std::unique_ptr<llvm::MCInstrInfo> mii_;
};

// "" when `word` is what LLVM's assembler makes of the printed `mi`, else
// the failure: opcode, our text, both words.
std::string check(Assembler& as, const llvm::MCInst& mi, uint32_t word) {
  std::string text = g_mc->print(mi, 0);
  uint32_t want = 0;
  std::string err;
  char w[64];
  std::snprintf(w, sizeof w, "ours 0x%08x", word);
  std::string head = std::string(g_mc->opcode_name(mi.getOpcode())) + ": '" + text + "' " + w;
  if (!as.assemble(text, want, err)) return head + ": " + err;
  if (want == word) return "";
  std::snprintf(w, sizeof w, ", LLVM's assembler 0x%08x", want);
  return head + w;
}

// ---- the kernels ----

struct Counts {
  size_t compiled = 0, refused = 0;
};
bool g_verbose = false;  // -v: name each refused kernel and why

bool compile(const ptoas::SourceFile& src, const ptoas::FrontendOptions& fo, ptoas::opt::Level level) {
  ptoas::Diag diag(&src);
  ptoas::Module m;
  ptoas::opt::Options oo;
  oo.level = level;
  ptoas::cg::ModuleCode code;
  bool ok = ptoas::run_frontend(src, fo, m, diag) &&
            ptoas::opt::optimize(m, oo, ptoas::cg::opt_target(ptoas::cg::target("sve")), diag) &&
            ptoas::cg::compile_module(m, ptoas::cg::target("sve"), code, diag);
  // The JIT image adds the packed-argument thunk (its call, stack
  // arguments and frame) to what the object holds; the thunk depends on
  // the parameters only, so once per signature (it recompiles the kernel).
  static std::set<std::string> signatures;
  std::string_view text = src.text();
  size_t fn_at = std::min(text.find("func.func"), text.size());
  std::string sig(text.substr(fn_at, text.find('{', fn_at) - fn_at));
  if (ok && signatures.insert(sig).second) {
    std::string err;
    ptoas::InstId fn = ptoas::rt::Interpreter(m).find_function("", err);
    ptoas::cg::JitImage img;
    if (fn != ptoas::kNone) ok = ptoas::cg::build_jit_image(m, fn, ptoas::cg::target("sve"), img, diag);
  }
  if (!ok && g_verbose)
    std::printf("refused: %s: %s\n", src.name().c_str(), diag.text().substr(0, diag.text().find('\n')).c_str());
  return ok;
}

void compile_files(const std::filesystem::path& root, Counts& c) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  auto add_dir = [&](const fs::path& d, bool recursive) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) return;
    if (recursive) {
      for (const auto& e : fs::recursive_directory_iterator(d, ec))
        if (e.path().extension() == ".pto") files.push_back(e.path());
    } else {
      for (const auto& e : fs::directory_iterator(d, ec))
        if (e.path().extension() == ".pto") files.push_back(e.path());
    }
  };
  add_dir(root / "samples", true);
  add_dir(root / "tests" / "x86" / "kernels", false);
  add_dir(root / "tests" / "golden", true);
  add_dir(root / "tests" / "exec" / "cases", false);  // the differential's reproducers (GM scalars, atomics)
  for (const fs::path& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    ptoas::SourceFile src(p.string(), ss.str());
    for (ptoas::opt::Level l : {ptoas::opt::Level::O0, ptoas::opt::Level::O2})
      ++(compile(src, ptoas::FrontendOptions{}, l) ? c.compiled : c.refused);
  }
}

// A kernel made in this test, at -O0 (nothing optimized away).
void compile_text(const std::string& name, const std::string& text, ptoas::Arch arch, Counts& c) {
  ptoas::SourceFile src(name + ".pto", text);
  ptoas::FrontendOptions fo;
  fo.arch_from_cli = true;
  fo.arch = arch;
  ++(compile(src, fo, ptoas::opt::Level::O0) ? c.compiled : c.refused);
}

void compile_generated(Counts& c) {
  for (const sveforms::GenKernel& k : sveforms::generated_kernels()) compile_text(k.name, k.text, k.arch, c);
}

// The x86 differential test's kernels (tests/x86/target_diff_case.h): every
// op, lane type and shape class the x86 backend covers, which the SVE
// backend follows.
void compile_x86_cases(Counts& c) {
  std::vector<x86diff::Case> cases;
  x86diff::elementwise_cases(cases);
  x86diff::misc_cases(cases);
  x86diff::fused_cases(cases);
  x86diff::reduce_cases(cases);
  x86diff::ops_cases(cases);
  x86diff::view_cases(cases);
  x86diff::subview_gather_cases(cases);
  std::set<std::pair<std::string, ptoas::Arch>> seen;  // cases differ by their data, kernels less often
  for (const x86diff::Case& k : cases) {
    if (seen.insert({k.text, k.arch}).second) compile_text(k.name, k.text, k.arch, c);
  }
}

// ---- mutants ----

bool mutants_fail(Assembler& as) {
  bool ok = true;
  llvm::MCInst bad;
  bad.setOpcode(g_mc->opcode("FADD_ZZZ_S"));
  for (const char* r : {"X0", "Z1", "Z2"}) bad.addOperand(llvm::MCOperand::createReg(g_mc->reg(r)));
  uint32_t word = 0;
  std::string err;
  if (g_mc->encode(bad, word, err)) {
    std::printf("FAIL: Mc::encode accepted FADD_ZZZ_S with X0 (0x%08x)\n", word);
    ok = false;
  } else {
    std::printf("mutant: Mc::encode refuses FADD_ZZZ_S with X0: %s\n", err.c_str());
  }
  // The same MCInst through the bare code emitter (what an encoder without
  // the class check would write): the byte comparison must catch it.
  if (emit_word(g_mc->emitter(), bad, g_mc->subtarget(), word)) {
    std::string why = check(as, bad, word);
    if (why.empty()) {
      std::printf("FAIL: the byte check accepts FADD_ZZZ_S with X0 (0x%08x)\n", word);
      ok = false;
    } else {
      std::printf("mutant: the byte check rejects the unchecked encoding: %s\n", why.c_str());
    }
  }
  // A right instruction with a wrong word (one register field off by one).
  llvm::MCInst good;
  good.setOpcode(g_mc->opcode("FADD_ZZZ_S"));
  for (const char* r : {"Z0", "Z1", "Z2"}) good.addOperand(llvm::MCOperand::createReg(g_mc->reg(r)));
  if (!g_mc->encode(good, word, err) || !check(as, good, word).empty() || check(as, good, word + 1).empty()) {
    std::printf("FAIL: FADD_ZZZ_S z0, z1, z2: the check does not tell its word from a wrong one\n");
    ok = false;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string err;
  g_mc = ptoas::cg::sve::a64_mc(&err);
  if (!g_mc) {
    std::printf("SKIP: %s\n", err.c_str());
    return 77;
  }
  Assembler as;
  if (!as.init(err)) {
    std::printf("FAIL: %s\n", err.c_str());
    return 1;
  }
  std::filesystem::path root = PTOAS_SOURCE_DIR;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "-v") g_verbose = true;
    else root = argv[i];
  }
  Counts files, gen, x86;
  Mc::set_encode_observer(observe);
  compile_files(root, files);
  compile_generated(gen);
  compile_x86_cases(x86);
  Mc::set_encode_observer(nullptr);

  size_t instances = 0, failures = 0;
  for (const auto& [key, f] : g_forms) {
    if (g_verbose) std::printf("form: %s (%zu)\n", key.c_str(), f.seen.size());
    for (const Seen& s : f.seen) {
      ++instances;
      std::string why = check(as, s.inst, s.word);
      if (!why.empty()) {
        if (++failures <= 50) std::printf("FAIL: %s  [form %s]\n", why.c_str(), key.c_str());
      }
    }
  }
  bool mutants_ok = mutants_fail(as);
  std::set<unsigned> opcodes;
  for (const auto& [key, f] : g_forms) opcodes.insert(f.seen.front().inst.getOpcode());
  std::printf("sve_forms: kernels compiled for sve: %zu of the repository's (%zu refused), %zu generated (%zu "
              "refused), %zu of target_diff's (%zu refused)\n",
              files.compiled, files.refused, gen.compiled, gen.refused, x86.compiled, x86.refused);
  std::printf("sve_forms: %zu forms (%zu opcodes), %zu distinct instructions checked against LLVM's assembler, "
              "%zu mismatches\n",
              g_forms.size(), opcodes.size(), instances, failures);
  // Fewer kernels or forms than the backend covers today means the hook or
  // the kernel lists broke, not that all is well.
  if (files.compiled < 10 || gen.compiled < 100 || x86.compiled < 100 || g_forms.size() < 50) {
    std::printf("FAIL: too little was checked\n");
    return 1;
  }
  return failures == 0 && mutants_ok ? 0 : 1;
}
