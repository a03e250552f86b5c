// ptodis on AMDGPU code objects (ptoas -target=amdgpu, docs/amdgpu_backend.md).
// The kernels and their instructions come from the interpreter's reader
// (amdgpu/code_object_reader.h), which decodes with the chip's MC instance:
// the text is LLVM's, as `ptoas --emit=asm` and llvm-objdump print it. The
// .hsaco is linked, so its line table holds virtual addresses; a row
// belongs to the kernel whose code holds that address, and offsets are
// shown from the kernel's entry.
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <span>

#include "amdgpu/code_object_reader.h"
#include "chip.h"
#include "decoders.h"
#include "source_lines.h"

namespace ptoas::dis {

namespace {

using amdgpu_emu::CodeInst;
using amdgpu_emu::KernelCode;
using llvm::object::ELF64LEObjectFile;

// The bytes of [addr, addr + n) in an allocated section; empty when no
// section holds them all.
std::span<const uint8_t> bytes_at(const ELF64LEObjectFile& obj, uint64_t addr, uint64_t n) {
  for (const auto& sec : obj.sections()) {
    uint64_t a = sec.getAddress(), sz = sec.getSize();
    if (sec.isBSS() || addr < a || addr - a > sz || n > sz - (addr - a)) continue;
    auto data = sec.getContents();
    if (!data) {
      llvm::consumeError(data.takeError());
      continue;
    }
    if (data->size() != sz) continue;
    return {reinterpret_cast<const uint8_t*>(data->data()) + (addr - a), size_t(n)};
  }
  return {};
}

uint64_t code_size(const KernelCode& k) {
  return k.insts.empty() ? 0 : k.insts.back().offset + k.insts.back().size;
}

// The rows of .debug_line (and the string sections its names point into)
// that fall inside a kernel's code, sorted by address, one per address.
bool read_lines(const ELF64LEObjectFile& obj, const std::vector<KernelCode>& kernels, LineInfo& info,
                std::vector<Line>& rows, std::string& err) {
  DwarfSections ds;
  bool have_line = false;
  for (const auto& sec : obj.sections()) {
    auto name = sec.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    std::string_view* into = *name == ".debug_line"       ? &ds.line
                              : *name == ".debug_line_str" ? &ds.line_str
                              : *name == ".debug_str"      ? &ds.str
                                                           : nullptr;
    if (!into) continue;
    if (llvm::object::ELFSectionRef(sec).getFlags() & llvm::ELF::SHF_COMPRESSED) {
      err = "compressed " + name->str() + " sections are not supported";
      return false;
    }
    auto data = sec.getContents();
    if (!data) {
      err = name->str() + ": " + llvm::toString(data.takeError());
      return false;
    }
    *into = std::string_view(data->data(), data->size());
    have_line |= into == &ds.line;
  }
  if (!have_line) return true;
  // Kernel code ranges by entry address, to place each row.
  std::vector<std::pair<uint64_t, uint64_t>> code;
  uint64_t code_bytes = 0;
  for (const KernelCode& k : kernels) {
    code.push_back({k.address, k.address + code_size(k)});
    code_bytes += code_size(k);
  }
  std::sort(code.begin(), code.end());
  LineRows kept(code_bytes);
  auto keep = [&](const LineRow& row) {
    if (row.end_sequence || row.line == 0 || row.file < 0) return;
    auto it = std::upper_bound(code.begin(), code.end(), std::make_pair(row.address, UINT64_MAX));
    if (it == code.begin() || row.address >= std::prev(it)->second) return;
    kept.add({0, row.address, row.file, row.line, row.column});
  };
  std::string e;
  if (!decode_line_programs(ds, info, keep, e)) {
    err = "malformed .debug_line: " + e;
    return false;
  }
  rows = kept.finish();
  return true;
}

// LLVM's disassembler leaves a SOPP branch's operand as the raw word
// count; objdump adds the target, and so does the listing: `<kernel+0xoff>`.
std::string branch_target(const KernelCode& k, const CodeInst& ci) {
  bool branch = ci.opcode.rfind("S_BRANCH", 0) == 0 || ci.opcode.rfind("S_CBRANCH", 0) == 0;
  if (!branch || ci.operands.size() != 1 || ci.operands[0].kind != amdgpu_emu::McOperand::Imm) return {};
  int64_t target = int64_t(ci.offset) + 4 + int64_t(int16_t(uint16_t(ci.operands[0].imm))) * 4;
  char b[40];
  std::snprintf(b, sizeof b, "%s0x%llx>", target < 0 ? "-" : "+",
                (unsigned long long)(target < 0 ? -target : target));
  return " <" + shown(k.name, kMaxShownName) + b;
}

}  // namespace

bool looks_like_hsaco(const std::string& data) {
  return data.size() >= 20 && data.compare(0, 4, "\x7f" "ELF") == 0 &&
         (uint8_t(data[18]) | uint8_t(data[19]) << 8) == llvm::ELF::EM_AMDGPU;
}

bool list_hsaco(const std::string& name, const std::string& data, const Options& opt, std::string& out,
                std::string& err) {
  auto bad = [&](const std::string& why) {
    err = name + ": " + why;
    return false;
  };
  llvm::MemoryBufferRef ref(llvm::StringRef(data.data(), data.size()), name);
  auto bin = llvm::object::ObjectFile::createELFObjectFile(ref);
  if (!bin) return bad("malformed AMDGPU code object: " + llvm::toString(bin.takeError()));
  const auto* obj = llvm::dyn_cast<ELF64LEObjectFile>(bin->get());
  if (!obj) return bad("only 64-bit little-endian AMDGPU code objects are supported");
  if (obj->getELFFile().getHeader().e_type != llvm::ELF::ET_DYN)
    return bad("not a linked AMDGPU code object (.hsaco, as ptoas -target=amdgpu writes it)");
  // LLVM counts a symbol table's entries from its header without checking
  // them against the file: a crafted size would have the reader iterate
  // 2^60 failing symbols. With every section inside the file, symbols are
  // at most one per 24 bytes of it.
  auto sections = obj->getELFFile().sections();
  if (!sections) return bad("malformed AMDGPU code object: " + llvm::toString(sections.takeError()));
  for (const auto& s : *sections) {
    bool bits = s.sh_type != llvm::ELF::SHT_NOBITS && s.sh_type != llvm::ELF::SHT_NULL;
    if (bits && (s.sh_offset > data.size() || s.sh_size > data.size() - s.sh_offset))
      return bad("truncated: section #" + std::to_string(&s - sections->begin()) + " lies outside the file");
    bool symtab = s.sh_type == llvm::ELF::SHT_SYMTAB || s.sh_type == llvm::ELF::SHT_DYNSYM;
    if (symtab && s.sh_entsize != sizeof(llvm::object::ELF64LE::Sym))
      return bad("symbol table #" + std::to_string(&s - sections->begin()) + " has entries of " +
                 std::to_string(s.sh_entsize) + " bytes");
  }
  amdgpu_emu::CodeObject co;
  std::string why;
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  if (!amdgpu_emu::read_code_object(bytes, co, why)) return bad(why);
  std::vector<KernelCode>& kernels = co.kernels;
  std::sort(kernels.begin(), kernels.end(),
            [](const KernelCode& a, const KernelCode& b) { return a.address < b.address; });
  if (!opt.function.empty()) {
    kernels.erase(std::remove_if(kernels.begin(), kernels.end(),
                                 [&](const KernelCode& k) { return k.name != opt.function; }),
                  kernels.end());
    if (kernels.empty()) return bad("no kernel named '" + shown(opt.function, kMaxShownName) + "'");
  }
  // Kernels of a code object never share code; overlapping ones would list
  // the same bytes once per kernel.
  for (size_t i = 1; i < kernels.size(); ++i)
    if (kernels[i].address < kernels[i - 1].address + code_size(kernels[i - 1]))
      return bad("kernels " + shown(kernels[i - 1].name, kMaxShownName) + " and " +
                 shown(kernels[i].name, kMaxShownName) + " overlap");
  std::vector<std::span<const uint8_t>> code;
  for (const KernelCode& k : kernels) {
    code.push_back(bytes_at(*obj, k.address, code_size(k)));
    if (code.back().size() != code_size(k)) return bad("kernel " + shown(k.name, kMaxShownName) + " lies outside the file");
  }
  LineInfo info;
  std::vector<Line> lines;
  if (opt.source && !read_lines(*obj, kernels, info, lines, why)) return bad(why);
  SourceCache sources(opt.read_source, info);

  // With a sink, the listing leaves in pieces of about this size.
  constexpr size_t kPiece = size_t(1) << 20;
  auto flush = [&](bool last) {
    if (opt.write && (last || out.size() >= kPiece)) {
      opt.write(out);
      out.clear();
    }
  };
  out = name + ":\tfile format elf64-amdgpu (" + std::string(co.chip->name) + ")\n";
  if (kernels.empty()) out += "\n(no kernels)\n";
  for (size_t ki = 0; ki < kernels.size(); ++ki) {
    const KernelCode& k = kernels[ki];
    out += "\n" + shown(k.name, kMaxShownName) + " (kernel, " + std::to_string(code_size(k)) + " bytes at 0x" +
           hex(k.address, 1) + "):\n";
    auto li = std::lower_bound(lines.begin(), lines.end(), k.address,
                               [](const Line& l, uint64_t a) { return l.address < a; });
    for (const CodeInst& ci : k.insts) {
      // One source line per group: the last row at or before this
      // instruction that has not been shown.
      const uint64_t pc = k.address + ci.offset;
      const Line* show = nullptr;
      while (li != lines.end() && li->address <= pc) show = &*li++;
      if (show) out += sources.describe(*show) + "\n";
      // The instruction's dwords, as objdump shows them.
      std::string words;
      for (unsigned w = 0; w + 4 <= ci.size; w += 4)
        words += (w ? " " : "") + hex(le32(code[ki].data() + ci.offset + w), 8);
      if (words.size() < 26) words.resize(26, ' ');
      out += "  " + hex(ci.offset, 6) + ":  " + words + "\t" + ci.text + branch_target(k, ci) + "\n";
      flush(false);
    }
  }
  flush(true);
  return true;
}

}  // namespace ptoas::dis
