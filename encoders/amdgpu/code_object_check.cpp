// check_code_object (hazard_check.h): the linked object read back with
// LLVM's ELF reader and compared with what the backend asked for: each
// kernel's descriptor and its entry in the metadata note.
//
// It reads through ELFFile (templates in the header), not ELFObjectFile: the
// latter's ObjectFile base drags LLVM's IR, bitcode reader and their static
// option registrations into ptoas, whose every start then runs them.
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/Endian.h>

#include "hazard_check.h"

namespace ptoas::cg::amdgpu {

namespace {

uint32_t u32(const uint8_t* p) { return llvm::support::endian::read32le(p); }

}  // namespace

bool check_code_object(const CodeObjectInput& in, const std::vector<uint8_t>& hsaco, std::string& err) {
  llvm::StringRef blob(reinterpret_cast<const char*>(hsaco.data()), hsaco.size());
  auto file = llvm::object::ELF64LEFile::create(blob);
  auto secs = file ? file->sections() : llvm::Expected<llvm::object::ELF64LEFile::Elf_Shdr_Range>(file.takeError());
  if (!secs) {
    err = "amdgpu: the linked code object does not read back: " + llvm::toString(secs.takeError());
    return false;
  }
  const auto& elf = *file;
  auto bytes_at = [&](uint64_t addr, uint64_t size) -> const uint8_t* {
    for (const auto& s : *secs) {
      if (s.sh_type == llvm::ELF::SHT_NOBITS || addr < s.sh_addr || addr + size > s.sh_addr + s.sh_size) continue;
      auto c = elf.getSectionContents(s);
      if (!c) {
        llvm::consumeError(c.takeError());
        return nullptr;
      }
      return addr - s.sh_addr + size <= c->size() ? c->data() + (addr - s.sh_addr) : nullptr;
    }
    return nullptr;
  };
  // The defined symbols of the symbol table (.symtab), as (name, value, size).
  struct Sym { llvm::StringRef name; uint64_t value, size; };
  std::vector<Sym> syms;
  for (const auto& s : *secs) {
    if (s.sh_type != llvm::ELF::SHT_SYMTAB) continue;
    auto table = elf.symbols(&s);
    auto names = elf.getStringTableForSymtab(s, *secs);
    if (!table || !names) {
      llvm::consumeError(table.takeError());
      llvm::consumeError(names.takeError());
      continue;
    }
    for (const auto& sym : *table) {
      auto name = sym.getName(*names);
      if (name && sym.st_shndx != llvm::ELF::SHN_UNDEF) syms.push_back({*name, sym.st_value, sym.st_size});
      else if (!name) llvm::consumeError(name.takeError());
    }
  }
  llvm::msgpack::Document doc;
  bool have_meta = false;
  if (auto phdrs = elf.program_headers()) {
    for (const auto& ph : *phdrs) {
      if (ph.p_type != llvm::ELF::PT_NOTE) continue;
      llvm::Error e = llvm::Error::success();
      for (const auto& note : elf.notes(ph, e))
        if (note.getName() == "AMDGPU" && note.getType() == llvm::ELF::NT_AMDGPU_METADATA)
          have_meta = doc.readFromBlob(note.getDescAsStringRef(4), false);
      llvm::consumeError(std::move(e));
    }
  } else {
    llvm::consumeError(phdrs.takeError());
  }
  if (!have_meta) {
    err = "amdgpu: the code object has no readable AMDGPU metadata note";
    return false;
  }
  const Chip& c = *in.chip;
  for (const KernelCode& k : in.kernels) {
    const uint8_t* kd = nullptr;
    for (const Sym& s : syms)
      if (s.name == k.name + ".kd" && s.size == 64) kd = bytes_at(s.value, 64);
    auto bad = [&](const std::string& what) {
      err = "amdgpu: kernel " + k.name + ": " + what;
      return false;
    };
    if (!kd) return bad("no 64-byte descriptor " + k.name + ".kd");
    bool wave32 = (kd[56] | kd[57] << 8) & (1u << 10);
    if (wave32 != (c.wave == 32))
      return bad(std::string("the descriptor says wave") + (wave32 ? "32" : "64") + ", the code is wave" +
                 std::to_string(c.wave) + " (" + std::string(c.name) + ")");
    if (u32(kd + 0) != k.lds_bytes) return bad("the descriptor's LDS size is not " + std::to_string(k.lds_bytes));
    if (u32(kd + 8) != k.kernarg_size) return bad("the descriptor's kernarg size is not " + std::to_string(k.kernarg_size));
    // The VGPR granule: gfx9 counts in 8s (AGPRs after the arch VGPRs
    // rounded to 4), gfx11 wave32 in 8s.
    unsigned total = c.gen == 9 ? (k.next_free_vgpr + 3) / 4 * 4 : k.next_free_vgpr;
    unsigned want = (std::max(1u, total) + 7) / 8 - 1;
    if ((u32(kd + 48) & 0x3f) != want)
      return bad("the descriptor's VGPR granule is " + std::to_string(u32(kd + 48) & 0x3f) + ", not " +
                 std::to_string(want));
    bool found = false;
    auto& kernels = doc.getRoot().getMap(true)["amdhsa.kernels"];
    if (kernels.isArray()) {
      for (auto& node : kernels.getArray()) {
        if (!node.isMap()) continue;
        auto& m = node.getMap();
        if (m[".name"].isString() && m[".name"].getString() == k.name) {
          found = true;
          auto num = [&](const char* key) -> int64_t {
            auto& v = m[key];
            return v.getKind() == llvm::msgpack::Type::UInt ? int64_t(v.getUInt())
                   : v.getKind() == llvm::msgpack::Type::Int ? v.getInt() : -1;
          };
          if (num(".wavefront_size") != int64_t(c.wave)) return bad("the metadata's wavefront size differs");
          if (num(".kernarg_segment_size") != int64_t(k.kernarg_size)) return bad("the metadata's kernarg size differs");
          if (num(".group_segment_fixed_size") != int64_t(k.lds_bytes)) return bad("the metadata's LDS size differs");
        }
      }
    }
    if (!found) return bad("no entry in the metadata");
  }
  return true;
}

}  // namespace ptoas::cg::amdgpu
