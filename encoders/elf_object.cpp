// Relocatable ELF objects of the CPU targets through the LLVM 16 MC object
// streamer (notes/TOOLCHAIN.md §4), the target's part in an ElfTarget
// (x86/x86_elf.cpp, sve/sve_elf.cpp). LLVM is built without exceptions:
// nothing here throws.
//
//   .text        the functions, each 16-byte aligned (the target's padding),
//                a FUNC symbol with its size; global unless the function is
//                private
//   .rodata      the constants (when there are any); a function's rodata
//                fixup (x86: `lea r14, [rip + rel32]`) carries a PC32
//                relocation against it
//   .debug_line, .debug_line_str   DWARF 5 line table: one row per
//                instruction group (MC's own line-table machinery, fed by a
//                .loc before the group's bytes)
//   .debug_info, .debug_abbrev     one compile unit, a subprogram per
//                function (written here; docs/debug_info.md)
//   .note.GNU-stack (non-executable stack)
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDwarf.h>
#include <llvm/MC/MCExpr.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSectionELF.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MD5.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <unistd.h>

#include <climits>
#include <memory>
#include <mutex>

#include "elf_object.h"

#ifndef PTOAS_VERSION
#define PTOAS_VERSION "unknown"
#endif

namespace ptoas::cg {

namespace {

constexpr uint16_t kDwarfVersion = 5;

// The directory ptoas runs in (DW_AT_comp_dir, directory 0 of the line
// table); relative source names are relative to it.
std::string compilation_dir() {
  char buf[PATH_MAX];
  if (::getcwd(buf, sizeof buf)) return buf;
  return "";
}

// What the debug sections need besides the line rows (collected while .text
// is written).
struct FuncDebug {
  llvm::MCSymbol* begin;
  llvm::MCSymbol* end;
  std::string name;
  bool global;
  uint32_t decl_line;
};

// The abbreviation codes of the two DIEs .debug_info uses.
enum : unsigned { kAbbrevCU = 1, kAbbrevSubprogram = 2 };

void emit_abbrevs(llvm::MCStreamer& s) {
  using namespace llvm::dwarf;
  auto attr = [&](unsigned at, unsigned form) {
    s.emitULEB128IntValue(at);
    s.emitULEB128IntValue(form);
  };
  s.emitULEB128IntValue(kAbbrevCU);
  s.emitULEB128IntValue(DW_TAG_compile_unit);
  s.emitIntValue(DW_CHILDREN_yes, 1);
  attr(DW_AT_producer, DW_FORM_string);
  attr(DW_AT_language, DW_FORM_data2);
  attr(DW_AT_name, DW_FORM_string);
  attr(DW_AT_comp_dir, DW_FORM_string);
  attr(DW_AT_stmt_list, DW_FORM_sec_offset);
  attr(DW_AT_low_pc, DW_FORM_addr);
  attr(DW_AT_high_pc, DW_FORM_data4);  // a length (DWARF 4+)
  attr(0, 0);
  s.emitULEB128IntValue(kAbbrevSubprogram);
  s.emitULEB128IntValue(DW_TAG_subprogram);
  s.emitIntValue(DW_CHILDREN_no, 1);
  attr(DW_AT_name, DW_FORM_string);
  attr(DW_AT_external, DW_FORM_flag);
  attr(DW_AT_decl_file, DW_FORM_udata);
  attr(DW_AT_decl_line, DW_FORM_udata);
  attr(DW_AT_low_pc, DW_FORM_addr);
  attr(DW_AT_high_pc, DW_FORM_data4);
  attr(0, 0);
  s.emitULEB128IntValue(0);  // end of the table
}

void emit_string(llvm::MCStreamer& s, const std::string& str) {
  s.emitBytes(llvm::StringRef(str.c_str(), str.size() + 1));  // with its NUL
}

}  // namespace

bool write_elf_object(const Module& m, const ModuleCode& code, const ElfTarget& et, std::string& out,
                      std::string& err) {
  using namespace llvm;
  const llvm::Target* T = et.target;
  const std::string tt = et.triple;
  Triple triple(tt);
  MCTargetOptions opts;
  std::unique_ptr<MCRegisterInfo> mri(T->createMCRegInfo(tt));
  std::unique_ptr<MCAsmInfo> mai(mri ? T->createMCAsmInfo(*mri, tt, opts) : nullptr);
  std::unique_ptr<MCSubtargetInfo> sti(T->createMCSubtargetInfo(tt, et.cpu, et.features));
  std::unique_ptr<MCInstrInfo> mii(T->createMCInstrInfo());
  if (!mri || !mai || !sti || !mii) {
    err = "cannot set up the LLVM MC layer for " + tt;
    return false;
  }
  SourceMgr srcmgr;
  MCContext ctx(triple, mai.get(), mri.get(), sti.get(), &srcmgr, &opts);
  std::unique_ptr<MCObjectFileInfo> mofi(T->createMCObjectFileInfo(ctx, /*PIC=*/true));
  ctx.setObjectFileInfo(mofi.get());

  // Debug info only when there is code to describe (and a source to name).
  const bool debug = !code.funcs.empty();
  const std::string src_name = m.src ? m.src->name() : "<input>";
  const std::string comp_dir = compilation_dir();
  unsigned file_no = 0;
  if (debug) {
    ctx.setDwarfVersion(kDwarfVersion);
    ctx.setCompilationDir(comp_dir);
    std::optional<MD5::MD5Result> md5;
    if (m.src) {
      std::string_view t = m.src->text();
      md5 = MD5::hash(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(t.data()), t.size()));
    }
    // DWARF 5: file 0 is the primary source file, directory 0 comp_dir.
    ctx.setMCLineTableRootFile(0, comp_dir, src_name, md5, std::nullopt);
    StringRef dir, file(src_name);
    file_no = ctx.getMCDwarfLineTable(0).getFile(dir, file, md5, std::nullopt, kDwarfVersion);
  }

  SmallVector<char, 0> buf;
  raw_svector_ostream os(buf);
  MCAsmBackend* mab = T->createMCAsmBackend(*sti, *mri, opts);
  MCCodeEmitter* mce = T->createMCCodeEmitter(*mii, ctx);
  if (!mab || !mce) {
    err = "cannot create the LLVM object writer for " + tt;
    return false;
  }
  std::unique_ptr<MCStreamer> s(T->createMCObjectStreamer(
      triple, ctx, std::unique_ptr<MCAsmBackend>(mab), mab->createObjectWriter(os),
      std::unique_ptr<MCCodeEmitter>(mce), *sti, false, false, false));
  s->initSections(/*NoExecStack=*/true, *sti);

  // A .loc for the bytes emitted next: MC turns it into a line row at the
  // current .text address.
  auto loc = [&](uint32_t line, uint32_t col, unsigned flags) {
    s->emitDwarfLocDirective(file_no, line, col, flags, 0, 0, src_name);
  };
  auto line_col = [&](uint32_t src_loc) {
    return m.src ? m.src->line_col(src_loc) : LineCol{0, 0};
  };

  MCSymbol* consts = ctx.createTempSymbol("pto_consts", true);
  // .text: lay the functions out ourselves (as the listing does), one line
  // row per instruction group.
  s->switchSection(mofi->getTextSection());
  s->emitCodeAlignment(Align(16), sti.get());
  std::vector<FuncDebug> fdebug;
  uint64_t pos = 0;
  for (const FuncCode& f : code.funcs) {
    uint64_t aligned = (pos + 15) & ~uint64_t(15);
    if (aligned > pos) {
      if (debug) loc(0, 0, 0);  // padding belongs to no source line
      et.pad(*s, *sti, size_t(aligned - pos));
    }
    pos = aligned;
    MCSymbol* sym = ctx.getOrCreateSymbol(f.name);
    if (f.global) s->emitSymbolAttribute(sym, MCSA_Global);
    else s->emitSymbolAttribute(sym, MCSA_Local);
    s->emitSymbolAttribute(sym, MCSA_ELF_TypeFunction);
    s->emitLabel(sym);
    const char* bytes = reinterpret_cast<const char*>(f.code.data());
    const uint32_t n = uint32_t(f.code.size());
    const bool fixup = f.rodata_fixup != kNoFixup && f.rodata_fixup + 4 <= n;
    // Walk the code in pieces that end at the next group start or at the
    // rodata fixup; each group start gets its row first.
    size_t li = 0, rows = 0;
    uint32_t p = 0;
    while (p < n) {
      if (debug) {
        const LineEntry* e = nullptr;
        while (li < f.lines.size() && f.lines[li].offset <= p) e = &f.lines[li++];
        if (e) {
          LineCol lc = line_col(e->src_loc);
          // The second row ends the prologue (the first is the function op).
          loc(lc.line, lc.col, DWARF2_FLAG_IS_STMT | (rows == 1 ? DWARF2_FLAG_PROLOGUE_END : 0));
          ++rows;
        }
      }
      if (fixup && p == f.rodata_fixup) {
        MCSymbol* here = ctx.createTempSymbol();
        s->emitLabel(here);
        // consts - (here + 4): R_X86_64_PC32 against .rodata, addend -4.
        const MCExpr* e = MCBinaryExpr::createSub(
            MCSymbolRefExpr::create(consts, ctx),
            MCBinaryExpr::createAdd(MCSymbolRefExpr::create(here, ctx), MCConstantExpr::create(4, ctx),
                                    ctx),
            ctx);
        s->emitValue(e, 4);
        p += 4;
        continue;
      }
      uint32_t next = n;
      if (debug && li < f.lines.size()) next = std::min(next, f.lines[li].offset);
      if (fixup && f.rodata_fixup > p) next = std::min(next, f.rodata_fixup);
      if (!et.emit(*s, *sti, reinterpret_cast<const uint8_t*>(bytes) + p, next - p, err)) return false;
      p = next;
    }
    MCSymbol* end = ctx.createTempSymbol();
    s->emitLabel(end);
    s->emitELFSize(sym, MCBinaryExpr::createSub(MCSymbolRefExpr::create(end, ctx),
                                                MCSymbolRefExpr::create(sym, ctx), ctx));
    uint32_t decl = f.lines.empty() ? 0 : line_col(f.lines.front().src_loc).line;
    fdebug.push_back({sym, end, f.name, f.global, decl});
    pos += n;
  }
  if (!code.rodata.empty()) {
    s->switchSection(mofi->getReadOnlySection());
    s->emitValueToAlignment(Align(64));
    s->emitLabel(consts);
    s->emitBytes(StringRef(reinterpret_cast<const char*>(code.rodata.data()), code.rodata.size()));
  }

  if (debug) {
    // .debug_line itself is written by MC in finish(); the CU points at it.
    MCSymbol* line_start = s->getDwarfLineTableSymbol(0);
    s->switchSection(mofi->getDwarfAbbrevSection());
    MCSymbol* abbrev_start = ctx.createTempSymbol();
    s->emitLabel(abbrev_start);
    emit_abbrevs(*s);

    s->switchSection(mofi->getDwarfInfoSection());
    MCSymbol* unit_begin = ctx.createTempSymbol();
    MCSymbol* unit_end = ctx.createTempSymbol();
    s->emitAbsoluteSymbolDiff(unit_end, unit_begin, 4);  // unit_length (DWARF32)
    s->emitLabel(unit_begin);
    s->emitIntValue(kDwarfVersion, 2);
    s->emitIntValue(dwarf::DW_UT_compile, 1);
    s->emitIntValue(8, 1);  // address size
    s->emitSymbolValue(abbrev_start, 4);
    // The compile unit: .text from the first function to the end of the last.
    s->emitULEB128IntValue(kAbbrevCU);
    emit_string(*s, std::string("ptoas ") + PTOAS_VERSION);
    s->emitIntValue(dwarf::DW_LANG_Mips_Assembler, 2);
    emit_string(*s, src_name);
    emit_string(*s, comp_dir);
    s->emitSymbolValue(line_start, 4);
    s->emitSymbolValue(fdebug.front().begin, 8);
    s->emitAbsoluteSymbolDiff(fdebug.back().end, fdebug.front().begin, 4);
    for (const FuncDebug& fd : fdebug) {
      s->emitULEB128IntValue(kAbbrevSubprogram);
      emit_string(*s, fd.name);
      s->emitIntValue(fd.global ? 1 : 0, 1);
      s->emitULEB128IntValue(file_no);
      s->emitULEB128IntValue(fd.decl_line);
      s->emitSymbolValue(fd.begin, 8);
      s->emitAbsoluteSymbolDiff(fd.end, fd.begin, 4);
    }
    s->emitULEB128IntValue(0);  // end of the CU's children
    s->emitLabel(unit_end);
  }
  s->finish();
  out.assign(buf.data(), buf.size());
  return true;
}

}  // namespace ptoas::cg
