// JIT loader (jit.h).
#include "jit.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "codegen.h"
#include "elem.h"


namespace ptoas::rt {

bool cpu_supports(const std::string& target) {
  const cg::Target* t = cg::find_target(target);
  return t && t->cpu_can_run && t->cpu_can_run();
}

std::vector<DType> jit_param_types(const Module& m, InstId fn) {
  std::vector<DType> out;
  const Region& body = m.region(m.inst(fn), 0);
  for (unsigned i = 0; i < body.arg_count; ++i) {
    const Type& ty = m.type_of(m.region_arg(body, i));
    out.push_back(ty.kind == TypeKind::Scalar ? ty.elem : DType::None);
  }
  return out;
}

std::vector<uint64_t> jit_slots(const std::vector<DType>& param_types, const std::vector<Arg>& args,
                                int64_t block_idx, int64_t block_num) {
  std::vector<uint64_t> slots(param_types.size() + 2, 0);
  for (size_t i = 0; i < param_types.size() && i < args.size(); ++i) {
    const Arg& a = args[i];
    DType d = param_types[i];
    if (a.kind == Arg::Kind::Ptr) {
      slots[i] = reinterpret_cast<uintptr_t>(a.data);
    } else if (d == DType::F32) {
      float f = a.kind == Arg::Kind::Float ? float(a.f) : float(a.i);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      slots[i] = b;
    } else if (d == DType::F64) {
      double f = a.kind == Arg::Kind::Float ? a.f : double(a.i);
      std::memcpy(&slots[i], &f, 8);
    } else if (d == DType::F16 || d == DType::BF16) {  // uint16_t bit patterns (DESIGN §5)
      double f = a.kind == Arg::Kind::Float ? a.f : double(a.i);
      float r = float(round_to(d, f));  // exact in f32
      slots[i] = d == DType::F16 ? f32_to_f16_bits(r) : f32_to_bf16_bits(r);
    } else {
      slots[i] = uint64_t(a.kind == Arg::Kind::Int ? a.i : int64_t(a.f));
    }
  }
  slots[param_types.size()] = uint64_t(block_idx);
  slots[param_types.size() + 1] = uint64_t(block_num);
  return slots;
}

JitKernel::~JitKernel() {
  if (mem_) ::munmap(mem_, size_);
}

bool JitKernel::assemble(const Module& m, InstId fn, const std::string& target, Diag& diag,
                         std::string& err, cg::JitImage& img) {
  const cg::Target* t = cg::find_target(target);
  if (!t || !t->packed_thunk) {
    err = "target " + target + " has no JIT";
    return false;
  }
  if (!cg::build_jit_image(m, fn, *t, img, diag, opts_)) {
    err = "the kernel cannot be assembled for " + target;
    return false;
  }
  param_types_ = jit_param_types(m, fn);
  return true;
}

bool JitKernel::load(const Module& m, InstId fn, const std::string& target, Diag& diag,
                     std::string& err) {
  cg::JitImage img;
  if (!assemble(m, fn, target, diag, err, img)) return false;
  if (!cpu_supports(target)) {
    err = "this CPU cannot run " + target + " code (it needs " + std::string(cg::target(target).cpu_needs) + ")";
    return false;
  }
  size_t page = size_t(::sysconf(_SC_PAGESIZE));
  size_t n = (img.bytes.size() + page - 1) / page * page;
  void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    err = "cannot map memory for the JIT code";
    return false;
  }
  std::memcpy(p, img.bytes.data(), img.bytes.size());
  // AArch64 (native sve): the instruction cache does not snoop the data
  // writes; a no-op on x86.
  __builtin___clear_cache(static_cast<char*>(p), static_cast<char*>(p) + img.bytes.size());
  if (::mprotect(p, n, PROT_READ | PROT_EXEC) != 0) {
    ::munmap(p, n);
    err = "cannot make the JIT code executable";
    return false;
  }
  mem_ = p;
  size_ = n;
  thunk_ = reinterpret_cast<void (*)(const uint64_t*)>(static_cast<uint8_t*>(p) + img.thunk_offset);
  return true;
}

bool JitKernel::load_for_emulator(const Module& m, InstId fn, const std::string& target, Diag& diag,
                                  std::string& err) {
  auto img = std::make_unique<cg::JitImage>();
  if (!assemble(m, fn, target, diag, err, *img)) return false;
  image_ = std::move(img);
  sve_ = cg::target(target).isa == cg::Isa::AArch64;
  return true;
}

void JitKernel::run(const std::vector<Arg>& args, int64_t block_idx, int64_t block_num) const {
  std::vector<uint64_t> slots = jit_slots(param_types_, args, block_idx, block_num);
  thunk_(slots.data());
}

}  // namespace ptoas::rt
