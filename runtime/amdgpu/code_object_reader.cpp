// The code object reader (code_object_reader.h). The ELF side is LLVM's
// Object library; instructions go through the chip's MC instance, so the
// text is exactly what ptodis and llvm-objdump print for the chip.
#include "code_object_reader.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/MC/MCInst.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstring>
#include <map>

#include "chip.h"
#include "hex_text.h"

namespace ptoas::amdgpu_emu {

namespace {

using llvm::object::ELF64LEObjectFile;

struct Sym {
  uint64_t addr = 0, size = 0;
  bool func = false;
};

const cg::amdgpu::Chip* chip_of_mach(unsigned mach) {
  switch (mach) {
    case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A: return cg::amdgpu::find_chip("gfx90a");
    case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942: return cg::amdgpu::find_chip("gfx942");
    case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX1100: return cg::amdgpu::find_chip("gfx1100");
    default: return nullptr;
  }
}

// The bytes at [addr, addr+n) of an allocated section (in a linked object
// section addresses are virtual addresses); empty if no section holds them.
std::span<const uint8_t> bytes_at(const ELF64LEObjectFile& obj, uint64_t addr, uint64_t n) {
  for (const auto& sec : obj.sections()) {
    uint64_t a = sec.getAddress(), sz = sec.getSize();
    if (addr < a || addr + n > a + sz || sec.isBSS()) continue;
    auto data = sec.getContents();
    if (!data) {
      llvm::consumeError(data.takeError());
      continue;
    }
    return {reinterpret_cast<const uint8_t*>(data->data()) + (addr - a), size_t(n)};
  }
  return {};
}

template <class T>
T rd(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// LLVM's printer separates the mnemonic with a tab and may pad; one blank
// between words keeps the decoder and the messages simple.
std::string normalise(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\t' || c == '\n') c = ' ';
    if (c == ' ' && (o.empty() || o.back() == ' ')) continue;
    o += c;
  }
  while (!o.empty() && o.back() == ' ') o.pop_back();
  return o;
}

void collect(const llvm::object::ELFObjectFileBase::elf_symbol_iterator_range& range, std::map<std::string, Sym>& syms) {
  for (const auto& s : range) {
    auto name = s.getName();
    auto addr = s.getAddress();
    if (!name || !addr) {
      if (!name) llvm::consumeError(name.takeError());
      if (!addr) llvm::consumeError(addr.takeError());
      continue;
    }
    if (name->empty()) continue;
    Sym& y = syms[name->str()];
    y.addr = *addr;
    y.size = s.getSize();
    y.func = s.getELFType() == llvm::ELF::STT_FUNC;
  }
}

bool decode_kernel(const ELF64LEObjectFile& obj, const mc::Mc& mc, uint64_t end, KernelCode& k, std::string& err) {
  uint64_t size = end - k.address;
  auto code = bytes_at(obj, k.address, size);
  if (code.size() != size) {
    err = "kernel " + k.name + ": its code at " + hex(k.address) + " is not in the file";
    return false;
  }
  for (uint64_t off = 0; off < size;) {
    llvm::MCInst mi;
    unsigned n = 0;
    if (!mc.decode(code.subspan(off), k.address + off, mi, n)) {
      err = "kernel " + k.name + ": no valid instruction at offset " + hex(off);
      return false;
    }
    CodeInst ci;
    ci.offset = off;
    ci.size = n;
    ci.text = normalise(mc.print(mi, k.address + off));
    ci.opcode = std::string(mc.opcode_name(mi.getOpcode()));
    for (const auto& op : mi) {
      McOperand o;
      if (op.isReg()) {
        o.kind = McOperand::Reg;
        o.reg = op.getReg();
      } else if (op.isImm()) {
        o.kind = McOperand::Imm;
        o.imm = op.getImm();
      }
      ci.operands.push_back(o);
    }
    k.insts.push_back(std::move(ci));
    off += n;
  }
  return true;
}

}  // namespace

const KernelCode* CodeObject::find(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

bool read_code_object(std::span<const uint8_t> hsaco, CodeObject& out, std::string& err) {
  out = CodeObject{};
  llvm::MemoryBufferRef ref(llvm::StringRef(reinterpret_cast<const char*>(hsaco.data()), hsaco.size()), "hsaco");
  auto bin = llvm::object::ObjectFile::createELFObjectFile(ref);
  if (!bin) {
    err = "not an ELF object: " + llvm::toString(bin.takeError());
    return false;
  }
  const auto* obj = llvm::dyn_cast<ELF64LEObjectFile>(bin->get());
  if (!obj || obj->getELFFile().getHeader().e_machine != llvm::ELF::EM_AMDGPU) {
    err = "not a 64-bit little-endian AMDGPU ELF object";
    return false;
  }
  out.e_flags = uint32_t(obj->getPlatformFlags());
  unsigned mach = out.e_flags & llvm::ELF::EF_AMDGPU_MACH;
  out.chip = chip_of_mach(mach);
  if (!out.chip) {
    err = "the code object is for a chip the interpreter does not know (e_flags mach " + hex(mach) +
          "; known: " + cg::amdgpu::chip_names() + ")";
    return false;
  }
  std::string why;
  const mc::Mc* mc = cg::amdgpu::chip_mc(*out.chip, &why);
  if (!mc) {
    err = "no LLVM MC instance for " + std::string(out.chip->name) + ": " + why;
    return false;
  }

  std::map<std::string, Sym> syms;
  collect(obj->symbols(), syms);
  collect(obj->getDynamicSymbolIterators(), syms);

  for (const auto& [name, s] : syms) {
    if (name.size() < 4 || name.compare(name.size() - 3, 3, ".kd") != 0) continue;
    std::string kname = name.substr(0, name.size() - 3);
    auto kd_bytes = bytes_at(*obj, s.addr, 64);
    if (kd_bytes.size() != 64) {
      err = "descriptor " + name + " is not 64 bytes inside an allocated section";
      return false;
    }
    KernelCode k;
    k.name = kname;
    k.kd_address = s.addr;
    const uint8_t* p = kd_bytes.data();
    k.kd.group_segment_fixed_size = rd<uint32_t>(p + 0);
    k.kd.private_segment_fixed_size = rd<uint32_t>(p + 4);
    k.kd.kernarg_size = rd<uint32_t>(p + 8);
    k.kd.entry_offset = rd<int64_t>(p + 16);
    k.kd.rsrc3 = rd<uint32_t>(p + 44);
    k.kd.rsrc1 = rd<uint32_t>(p + 48);
    k.kd.rsrc2 = rd<uint32_t>(p + 52);
    k.kd.code_properties = rd<uint16_t>(p + 56);
    k.address = s.addr + uint64_t(k.kd.entry_offset);
    // The code runs to the end of the function symbol at the entry; without
    // one, to the end of its section.
    uint64_t end = 0;
    auto f = syms.find(kname);
    if (f != syms.end() && f->second.addr == k.address && f->second.size) end = k.address + f->second.size;
    if (!end) {
      for (const auto& sec : obj->sections())
        if (k.address >= sec.getAddress() && k.address < sec.getAddress() + sec.getSize())
          end = sec.getAddress() + sec.getSize();
    }
    if (!end) {
      err = "kernel " + kname + ": its entry " + hex(k.address) + " is in no section";
      return false;
    }
    if (!decode_kernel(*obj, *mc, end, k, err)) return false;
    out.kernels.push_back(std::move(k));
  }
  return true;
}

}  // namespace ptoas::amdgpu_emu
