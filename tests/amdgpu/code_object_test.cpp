// The AMDGPU code-object writer (encoders/amdgpu/code_object.h), checked on
// what it produces: the .hsaco is read back with LLVM's ELF reader, its
// kernel descriptors decoded field by field, its metadata note decoded and
// run through LLVM's verifier, and its .text disassembled with the chip's MC
// instance and compared with the body that went in.
#include <catch2/catch.hpp>

#include <llvm/BinaryFormat/AMDGPUMetadataVerifier.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/MC/MCInst.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Endian.h>

#include <cstring>
#include <map>
#include <sstream>

#include "amdgpu/code_object.h"

using namespace ptoas::cg::amdgpu;

namespace {

// A vadd kernel per ISA generation: out[i] = a[i] + b[i], i = wg_id*256 + tid.
// Written the way LLVM's printer spells each instruction, so the round trip
// compares text with text (LLVM 19 prints gfx11's zero SMEM offset as the
// null SGPR, which assembles to the same bytes as 0x0).
const char* const kVaddGfx9 =
    "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n"
    "  s_load_dwordx2 s[8:9], s[0:1], 0x10\n"
    "  s_lshl_b32 s3, s2, 8\n"
    "  v_add_u32_e32 v1, s3, v0\n"
    "  v_lshlrev_b32_e32 v1, 2, v1\n"
    "  s_waitcnt lgkmcnt(0)\n"
    "  global_load_dword v2, v1, s[4:5]\n"
    "  global_load_dword v3, v1, s[6:7]\n"
    "  s_waitcnt vmcnt(0)\n"
    "  v_add_f32_e32 v2, v2, v3\n"
    "  global_store_dword v1, v2, s[8:9]\n"
    "  s_endpgm\n";

const char* const kVaddGfx11 =
    "  s_load_b128 s[4:7], s[0:1], null\n"
    "  s_load_b64 s[8:9], s[0:1], 0x10\n"
    "  s_lshl_b32 s3, s15, 8\n"
    "  v_add_nc_u32_e32 v1, s3, v0\n"
    "  v_lshlrev_b32_e32 v1, 2, v1\n"
    "  s_waitcnt lgkmcnt(0)\n"
    "  global_load_b32 v2, v1, s[4:5]\n"
    "  global_load_b32 v3, v1, s[6:7]\n"
    "  s_waitcnt vmcnt(0)\n"
    "  v_add_f32_e32 v2, v2, v3\n"
    "  global_store_b32 v1, v2, s[8:9]\n"
    "  s_endpgm\n";

const Chip& chip(const char* name) {
  const Chip* c = find_chip(name);
  REQUIRE(c);
  return *c;
}

KernelCode vadd(const Chip& c, std::string name, uint32_t lds = 0) {
  KernelCode k;
  k.name = std::move(name);
  k.body = c.gen == 9 ? kVaddGfx9 : kVaddGfx11;
  k.args = {{"a", 0, 8, "global_buffer"}, {"b", 8, 8, "global_buffer"}, {"out", 16, 8, "global_buffer"},
            {"", 24, 4, "hidden_block_count_x"}};
  k.kernarg_size = 28;
  k.lds_bytes = lds;
  k.next_free_vgpr = 4;
  k.next_free_sgpr = c.gen == 9 ? 10 : 16;
  return k;
}

std::vector<uint8_t> build(const CodeObjectInput& in) {
  std::vector<uint8_t> out;
  std::string err;
  bool ok = build_code_object(in, out, err);
  INFO(err);
  REQUIRE(ok);
  REQUIRE(!out.empty());
  return out;
}

// Whitespace collapsed, comments and the ends trimmed.
std::string norm(std::string s) {
  if (size_t semi = s.find(';'); semi != std::string::npos) s.resize(semi);
  std::string o;
  for (char ch : s) {
    bool sp = ch == ' ' || ch == '\t';
    if (sp && (o.empty() || o.back() == ' ')) continue;
    o += sp ? ' ' : ch;
  }
  while (!o.empty() && o.back() == ' ') o.pop_back();
  return o;
}

// The instructions of a body (no labels, no directives).
std::vector<std::string> body_insts(const std::string& body) {
  std::vector<std::string> v;
  std::istringstream is(body);
  for (std::string line; std::getline(is, line);) {
    std::string n = norm(line);
    if (!n.empty() && n[0] != '.' && n.back() != ':') v.push_back(n);
  }
  return v;
}

struct Hsaco {
  std::vector<uint8_t> bytes;
  std::unique_ptr<llvm::object::ELF64LEObjectFile> obj;

  explicit Hsaco(std::vector<uint8_t> b) : bytes(std::move(b)) {
    llvm::StringRef data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    auto o = llvm::object::ELF64LEObjectFile::create(llvm::MemoryBufferRef(data, "hsaco"));
    REQUIRE(bool(o));
    obj = std::make_unique<llvm::object::ELF64LEObjectFile>(std::move(*o));
  }
  const llvm::object::ELF64LEFile& elf() const { return obj->getELFFile(); }

  // name -> (address, size, type), from the static symbol table.
  struct Sym {
    uint64_t addr = 0, size = 0;
    unsigned type = 0;
  };
  std::map<std::string, Sym> symbols() const {
    std::map<std::string, Sym> m;
    for (const llvm::object::ELFSymbolRef& s : obj->symbols()) {
      auto name = s.getName();
      auto addr = s.getAddress();
      REQUIRE(bool(name));
      REQUIRE(bool(addr));
      m[name->str()] = {*addr, s.getSize(), s.getELFType()};
    }
    return m;
  }

  // The bytes at a virtual address, from the section that holds them.
  llvm::ArrayRef<uint8_t> at(uint64_t addr, uint64_t size) const {
    for (const llvm::object::SectionRef& sec : obj->sections()) {
      if (addr < sec.getAddress() || addr + size > sec.getAddress() + sec.getSize()) continue;
      auto contents = sec.getContents();
      REQUIRE(bool(contents));
      return llvm::arrayRefFromStringRef(*contents).slice(addr - sec.getAddress(), size);
    }
    FAIL("no section holds address " << addr);
    return {};
  }

  bool has_section(const char* name, llvm::StringRef* contents = nullptr) const {
    for (const llvm::object::SectionRef& sec : obj->sections()) {
      auto n = sec.getName();
      if (n && *n == name) {
        if (contents) *contents = *sec.getContents();
        return true;
      }
    }
    return false;
  }

  // The NT_AMDGPU_METADATA note, decoded.
  void metadata(llvm::msgpack::Document& doc) const {
    auto phdrs = elf().program_headers();
    REQUIRE(bool(phdrs));
    int found = 0;
    for (const auto& ph : *phdrs) {
      if (ph.p_type != llvm::ELF::PT_NOTE) continue;
      llvm::Error e = llvm::Error::success();
      for (const auto& note : elf().notes(ph, e)) {
        if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA) continue;
        REQUIRE(doc.readFromBlob(note.getDescAsStringRef(4), /*Multi=*/false));
        ++found;
      }
      REQUIRE(!e);
    }
    REQUIRE(found == 1);
  }
};

uint32_t u32(llvm::ArrayRef<uint8_t> b, size_t off) { return llvm::support::endian::read32le(b.data() + off); }

// Checks kernel `k` of a built code object: symbols, descriptor, the
// instructions of its body.
void check_kernel(const Hsaco& h, const Chip& c, const KernelCode& k) {
  auto syms = h.symbols();
  REQUIRE(syms.count(k.name));
  REQUIRE(syms.count(k.name + ".kd"));
  const auto& fn = syms[k.name];
  const auto& kd = syms[k.name + ".kd"];
  CHECK(fn.type == llvm::ELF::STT_FUNC);
  CHECK(fn.addr % 256 == 0);
  CHECK(kd.type == llvm::ELF::STT_OBJECT);
  CHECK(kd.size == 64);
  CHECK(kd.addr % 64 == 0);

  llvm::ArrayRef<uint8_t> d = h.at(kd.addr, 64);
  CHECK(u32(d, 0) == k.lds_bytes);    // group_segment_fixed_size
  CHECK(u32(d, 4) == 0);              // private_segment_fixed_size
  CHECK(u32(d, 8) == k.kernarg_size); // kernarg_size
  int64_t entry = int64_t(llvm::support::endian::read64le(d.data() + 16));
  CHECK(kd.addr + entry == fn.addr);
  uint32_t rsrc3 = u32(d, 44), rsrc1 = u32(d, 48), rsrc2 = u32(d, 52);
  uint16_t props = llvm::support::endian::read16le(d.data() + 56);
  CHECK(((rsrc2 >> 1) & 31) == c.user_sgprs);  // USER_SGPR_COUNT
  CHECK(((rsrc2 >> 7) & 1) == 1);              // workgroup id x
  CHECK(((rsrc2 >> 11) & 3) == 0);             // work-item id x only
  CHECK((props & 1) == 0);                     // no private segment buffer
  CHECK(((props >> 3) & 1) == 1);              // kernarg segment pointer
  CHECK(((props >> 10) & 1) == (c.wave == 32 ? 1u : 0u));
  CHECK(((rsrc1 >> 16) & 15) == 15);  // f32 and f16/f64 denormals kept
  CHECK(((rsrc1 >> 21) & 1) == 0);    // DX10 clamp off
  CHECK(((rsrc1 >> 23) & 1) == 1);    // IEEE mode on
  CHECK((rsrc1 & 63) == (std::max(4u, k.next_free_vgpr) + 7) / 8 - 1);  // VGPR granule 8
  // gfx9 SGPR granule 8, counting XNACK (4) or architected flat scratch (6)
  // past next_free_sgpr; gfx10+ leaves the field 0.
  unsigned sgprs = k.next_free_sgpr + (c.gfx940 ? 6 : 4);
  CHECK(((rsrc1 >> 6) & 15) == (c.gen == 9 ? (sgprs + 7) / 8 - 1 : 0));
  if (c.gen == 9) CHECK((rsrc3 & 63) == (std::max(4u, (k.next_free_vgpr + 3) & ~3u) / 4 - 1));

  // The instructions at the entry are the body's, in order.
  const ptoas::mc::Mc* m = chip_mc(c);
  REQUIRE(m);
  llvm::ArrayRef<uint8_t> code = h.at(fn.addr, fn.size);
  std::vector<std::string> got;
  for (size_t off = 0; off < code.size();) {
    llvm::MCInst mi;
    unsigned n = 0;
    REQUIRE(m->decode(code.slice(off), fn.addr + off, mi, n));
    got.push_back(norm(m->print(mi, fn.addr + off)));
    off += n;
  }
  CHECK(got == body_insts(k.body));
}

void check_metadata(const Hsaco& h, const Chip& c, const std::vector<KernelCode>& ks) {
  llvm::msgpack::Document doc;
  h.metadata(doc);
  llvm::AMDGPU::HSAMD::V3::MetadataVerifier verifier(/*Strict=*/true);
  CHECK(verifier.verify(doc.getRoot()));
  auto& root = doc.getRoot().getMap();
  auto& ver = root["amdhsa.version"].getArray();
  REQUIRE(ver.size() == 2);
  CHECK(ver[0].getUInt() == 1);
  CHECK(ver[1].getUInt() == 2);
  CHECK(root["amdhsa.target"].getString() == "amdgcn-amd-amdhsa--" + std::string(c.name));
  auto& kernels = root["amdhsa.kernels"].getArray();
  REQUIRE(kernels.size() == ks.size());
  for (size_t i = 0; i < ks.size(); ++i) {
    auto& km = kernels[i].getMap();
    CHECK(km[".name"].getString() == ks[i].name);
    CHECK(km[".symbol"].getString() == ks[i].name + ".kd");
    CHECK(km[".kernarg_segment_size"].getUInt() == ks[i].kernarg_size);
    CHECK(km[".group_segment_fixed_size"].getUInt() == ks[i].lds_bytes);
    CHECK(km[".wavefront_size"].getUInt() == c.wave);
    CHECK(km[".max_flat_workgroup_size"].getUInt() == ks[i].workgroup_size);
    CHECK(km[".vgpr_count"].getUInt() == ks[i].next_free_vgpr);
    auto& args = km[".args"].getArray();
    REQUIRE(args.size() == ks[i].args.size());
    for (size_t j = 0; j < args.size(); ++j) {
      auto& am = args[j].getMap();
      CHECK(am[".offset"].getUInt() == ks[i].args[j].offset);
      CHECK(am[".size"].getUInt() == ks[i].args[j].size);
      CHECK(am[".value_kind"].getString() == ks[i].args[j].value_kind);
    }
    CHECK(args[0].getMap()[".address_space"].getString() == "global");
  }
}

unsigned expected_mach(const Chip& c) {
  if (c.name == "gfx90a") return llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A;
  if (c.name == "gfx942") return llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942;
  return llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX1100;
}

}  // namespace

TEST_CASE("one vadd kernel per chip: ELF identity, descriptor, metadata, instructions") {
  for (const char* name : {"gfx90a", "gfx942", "gfx1100"}) {
    DYNAMIC_SECTION(name) {
      const Chip& c = chip(name);
      CodeObjectInput in{&c, {vadd(c, "vadd", 1024)}, ""};
      Hsaco h(build(in));
      const auto& eh = h.elf().getHeader();
      CHECK(eh.e_type == llvm::ELF::ET_DYN);
      CHECK(eh.e_machine == llvm::ELF::EM_AMDGPU);
      CHECK(eh.e_ident[llvm::ELF::EI_OSABI] == llvm::ELF::ELFOSABI_AMDGPU_HSA);
      CHECK(eh.e_ident[llvm::ELF::EI_ABIVERSION] == llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V5);
      CHECK((eh.e_flags & llvm::ELF::EF_AMDGPU_MACH) == expected_mach(c));
      check_kernel(h, c, in.kernels[0]);
      check_metadata(h, c, in.kernels);
      // .text ends in the prefetch padding LLVM's code generator also writes.
      llvm::StringRef text;
      REQUIRE(h.has_section(".text", &text));
      uint32_t pad = c.gen == 9 ? 0xbf800000u : 0xbf9f0000u;  // s_nop 0 / s_code_end
      CHECK(u32(llvm::arrayRefFromStringRef(text), text.size() - 4) == pad);
    }
  }
}

TEST_CASE("the descriptor directives follow the chip") {
  const Chip& g90 = chip("gfx90a");
  const Chip& g942 = chip("gfx942");
  const Chip& g11 = chip("gfx1100");
  std::string a = code_object_asm({&g90, {vadd(g90, "k")}, ""});
  std::string b = code_object_asm({&g942, {vadd(g942, "k")}, ""});
  std::string d = code_object_asm({&g11, {vadd(g11, "k")}, ""});
  CHECK(a.find(".amdhsa_user_sgpr_private_segment_buffer 0") != std::string::npos);
  CHECK(b.find("private_segment_buffer") == std::string::npos);
  CHECK(a.find(".amdhsa_accum_offset 4") != std::string::npos);
  CHECK(d.find("accum_offset") == std::string::npos);
  CHECK(d.find(".amdhsa_user_sgpr_count 15") != std::string::npos);
  CHECK(d.find(".amdhsa_wavefront_size32 1") != std::string::npos);
  CHECK(b.find("wavefront_size32") == std::string::npos);
}

TEST_CASE("two kernels in one object both get a descriptor and metadata") {
  for (const char* name : {"gfx942", "gfx1100"}) {
    DYNAMIC_SECTION(name) {
      const Chip& c = chip(name);
      KernelCode second = vadd(c, "second", 4096);
      second.next_free_vgpr = 9;  // accum_offset 12 on gfx9, a second VGPR granule
      second.kernarg_size = 32;
      CodeObjectInput in{&c, {vadd(c, "first"), second}, ""};
      Hsaco h(build(in));
      check_kernel(h, c, in.kernels[0]);
      check_kernel(h, c, in.kernels[1]);
      check_metadata(h, c, in.kernels);
      auto syms = h.symbols();
      CHECK(syms["first"].addr != syms["second"].addr);
      CHECK(syms["first.kd"].addr != syms["second.kd"].addr);
    }
  }
}

TEST_CASE("an assembler error names the bad line and gives no output") {
  const Chip& c = chip("gfx942");
  KernelCode k = vadd(c, "bad");
  k.body = "  s_mov_b32 s4, 0\n  v_add_f32_e32 v2, v2, vv3\n  s_endpgm\n";
  std::vector<uint8_t> out = {1, 2, 3};
  std::string err;
  CHECK(!build_code_object({&c, {k}, ""}, out, err));
  CHECK(out.empty());
  INFO(err);
  CHECK(err.find("v_add_f32_e32 v2, v2, vv3") != std::string::npos);
  CHECK(err.find("error") != std::string::npos);
}

TEST_CASE("metadata that LLVM's verifier rejects is an error") {
  const Chip& c = chip("gfx90a");
  KernelCode k = vadd(c, "k");
  k.args[0].value_kind = "no_such_kind";
  std::vector<uint8_t> out;
  std::string err;
  CHECK(!build_code_object({&c, {k}, ""}, out, err));
  CHECK(out.empty());
  INFO(err);
  CHECK(err.find("metadata") != std::string::npos);
}

TEST_CASE(".file and .loc produce a line table") {
  const Chip& c = chip("gfx1100");
  KernelCode k = vadd(c, "lines");
  k.body = "  .loc 1 3 0\n  s_mov_b32 s4, 0\n  .loc 1 7 2\n  v_mov_b32_e32 v1, 0\n  s_endpgm\n";
  Hsaco h(build({&c, {k}, "dir/kernel.pto"}));
  llvm::StringRef lines;
  REQUIRE(h.has_section(".debug_line", &lines));
  // DWARF 4 keeps the directory and the file name apart.
  CHECK(lines.contains("kernel.pto"));
  CHECK(lines.contains("dir"));
  check_kernel(h, c, k);
}

TEST_CASE("repeated builds in one process give the same bytes") {
  const Chip& c = chip("gfx90a");
  CodeObjectInput in{&c, {vadd(c, "again")}, ""};
  std::vector<uint8_t> first = build(in);
  for (int i = 0; i < 3; ++i) CHECK(build(in) == first);
  // A build the assembler rejects, in between, leaves MC and lld usable.
  KernelCode bad = vadd(c, "bad");
  bad.body = "  no_such_instruction\n";
  std::vector<uint8_t> out;
  std::string err;
  CHECK(!build_code_object({&c, {bad}, ""}, out, err));
  CHECK(build(in) == first);
}
