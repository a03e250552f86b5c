// JIT loader (jit.h).
#include "jit.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "codegen.h"

namespace ptoas::rt {

bool cpu_supports(const std::string& target) {
  if (target != "avx2") return false;
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

JitKernel::~JitKernel() {
  if (mem_) ::munmap(mem_, size_);
}

bool JitKernel::load(const Module& m, InstId fn, const std::string& target, Diag& diag,
                     std::string& err) {
  cg::Target t;
  if (!cg::parse_target(target, t)) {
    err = "target " + target + " has no JIT";
    return false;
  }
  cg::JitImage img;
  if (!cg::build_jit_image(m, fn, t, img, diag)) {
    err = "the kernel cannot be assembled for " + target;
    return false;
  }
  if (!cpu_supports(target)) {
    err = "this CPU cannot run " + target + " code (it needs AVX2 and FMA)";
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
  if (::mprotect(p, n, PROT_READ | PROT_EXEC) != 0) {
    ::munmap(p, n);
    err = "cannot make the JIT code executable";
    return false;
  }
  mem_ = p;
  size_ = n;
  thunk_ = reinterpret_cast<void (*)(const uint64_t*)>(static_cast<uint8_t*>(p) + img.thunk_offset);
  const Region& body = m.region(m.inst(fn), 0);
  param_types_.clear();
  for (unsigned i = 0; i < body.arg_count; ++i) {
    const Type& ty = m.type_of(m.region_arg(body, i));
    param_types_.push_back(ty.kind == TypeKind::Scalar ? ty.elem : DType::None);
  }
  return true;
}

void JitKernel::run(const std::vector<Arg>& args, int64_t block_idx, int64_t block_num) const {
  std::vector<uint64_t> slots(param_types_.size() + 2, 0);
  for (size_t i = 0; i < param_types_.size() && i < args.size(); ++i) {
    const Arg& a = args[i];
    DType d = param_types_[i];
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
    } else {
      slots[i] = uint64_t(a.kind == Arg::Kind::Int ? a.i : int64_t(a.f));
    }
  }
  slots[param_types_.size()] = uint64_t(block_idx);
  slots[param_types_.size() + 1] = uint64_t(block_num);
  thunk_(slots.data());
}

}  // namespace ptoas::rt
