// libFuzzer target for ptorun's launch path (runtime/launch.cpp and the
// interpreter's view probe): every sample kernel (samples/*/*.pto, loaded
// once) with scalars and a block count from the input, and buffers sized
// from the probe's answer give or take a few elements. Each input runs on
// the interpreter (ASan-instrumented, heap buffers) and, where this CPU has
// AVX2, on the JIT-compiled avx2 code over guarded buffers (a PROT_NONE page
// against each buffer, canaries around it: tests/ptorun/guarded_buffer.h).
// A crash, a sanitizer report, a guard-page fault or a changed canary is a
// finding; a refusal is fine (the launcher's job).
//
// Input: byte 0 the sample, byte 1 the blocks (1-4), byte 2 how buffers
// are sized, then 9 bytes per scalar parameter (a selector and 8 value
// bytes: small, negative, an edge of the type, or raw) and 1 byte per
// pointer parameter (its size adjustment). Missing bytes read as 0.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../ptorun/guarded_buffer.h"
#include "codegen.h"
#include "jit.h"
#include "opt.h"
#include "ptort.hpp"

using namespace ptoas;

namespace {

struct Sample {
  std::string name;
  std::unique_ptr<SourceFile> src;
  std::unique_ptr<Module> m;
  InstId fn = kNone;
  std::vector<rt::ParamInfo> params;
  std::unique_ptr<rt::JitKernel> jit;  // null: avx2 not here or refused
};

std::vector<Sample>& samples() {
  static std::vector<Sample> s;
  return s;
}

std::string arch_of(const std::filesystem::path& dir) {
  std::ifstream in(dir / "run.env");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("PTO_ARCH=", 0) == 0) return line.substr(9);
  return "";
}

void load_samples() {
  namespace fs = std::filesystem;
  const char* env = std::getenv("PTOAS_SAMPLES_DIR");
  fs::path root = env && *env ? fs::path(env) : fs::path(PTOAS_SOURCE_DIR) / "samples";
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root, ec))
    if (e.is_regular_file() && e.path().extension() == ".pto") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  bool avx2 = rt::cpu_supports("avx2");
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    Sample s;
    s.name = f.filename().string();
    s.src = std::make_unique<SourceFile>(s.name, ss.str());
    s.m = std::make_unique<Module>();
    Diag d(s.src.get());
    FrontendOptions fo;
    std::string arch = arch_of(f.parent_path());
    if (!arch.empty()) {
      fo.arch_from_cli = true;
      fo.arch = arch == "a5" ? Arch::A5 : Arch::A3;
    }
    if (!run_frontend(*s.src, fo, *s.m, d)) continue;
    opt::Options oo;
    if (!opt::optimize(*s.m, oo, cg::opt_target(cg::target("avx2")), d)) continue;
    rt::Interpreter interp(*s.m);
    std::string err;
    s.fn = interp.find_function("", err);
    if (s.fn == kNone) continue;
    s.params = rt::kernel_params(*s.m, s.fn);
    if (avx2) {
      s.jit = std::make_unique<rt::JitKernel>();
      if (!s.jit->load(*s.m, s.fn, "avx2", d, err)) s.jit.reset();
    }
    samples().push_back(std::move(s));
  }
  if (samples().empty()) {
    std::fprintf(stderr, "fuzz_launch: no sample kernels under %s\n", root.c_str());
    std::abort();
  }
}

struct Reader {
  const uint8_t* p;
  size_t n;
  uint8_t byte() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | byte();
    return v;
  }
};

std::string scalar_text(const rt::ParamInfo& p, Reader& r) {
  uint8_t sel = r.byte();
  uint64_t raw = r.u64();
  if (dtype_is_float(p.elem)) {
    static const char* f[] = {"0", "1", "-1", "0.5", "1e30", "-1e30", "inf", "nan", "1e-40", "65504"};
    return f[raw % (sizeof f / sizeof f[0])];
  }
  if (p.elem == DType::I1) return raw & 1 ? "1" : "0";
  unsigned bits = dtype_bytes(p.elem) * 8;
  bool uns = dtype_is_unsigned(p.elem);
  int64_t v;
  switch (sel % 5) {
    case 0: v = int64_t(raw % 300); break;                                  // small
    case 1: v = uns ? int64_t(raw % 4) : -int64_t(raw % 300); break;      // negative
    case 2: v = bits >= 64 ? (raw & 1 ? INT64_MAX : INT64_MIN) : 0; break;  // edges below
    case 3: v = int64_t(raw % 70000); break;
    default: v = int64_t(raw); break;
  }
  if (sel % 5 == 2 && bits < 64) {
    int64_t hi = uns ? int64_t((uint64_t(1) << bits) - 1) : int64_t((uint64_t(1) << (bits - 1)) - 1);
    v = raw & 1 ? hi : (uns ? 0 : -hi - 1);
  }
  if (sel % 5 == 1 && !uns) return std::to_string(v);
  // Wrap into the type's range (parse_scalar refuses out-of-range text).
  if (bits < 64) {
    uint64_t mask = (uint64_t(1) << bits) - 1, u = uint64_t(v) & mask;
    if (!uns && (u >> (bits - 1))) return std::to_string(int64_t(u) - int64_t(mask) - 1);
    return std::to_string(u);
  }
  return uns ? std::to_string(uint64_t(v)) : std::to_string(v);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  load_samples();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  Sample& s = samples()[r.byte() % samples().size()];
  int64_t blocks = 1 + r.byte() % 4;
  uint8_t sizing = r.byte();
  std::vector<std::pair<std::string, std::string>> scalars;
  for (const rt::ParamInfo& p : s.params)
    if (p.kind == rt::ParamInfo::Kind::Scalar) scalars.emplace_back(p.name, scalar_text(p, r));
  // The probe's answer, under a short deadline (huge loop bounds).
  rt::Interpreter interp(*s.m);
  interp.set_deadline(rt::Interpreter::Clock::now() + std::chrono::milliseconds(200), 0.2);
  std::vector<rt::Arg> pargs(s.params.size());
  size_t si = 0;
  bool bad = false;
  for (size_t k = 0; k < s.params.size(); ++k) {
    if (s.params[k].kind == rt::ParamInfo::Kind::Ptr) {
      pargs[k].kind = rt::Arg::Kind::Ptr;
    } else if (s.params[k].kind == rt::ParamInfo::Kind::Scalar) {
      std::string e;
      if (!rt::parse_scalar(s.params[k].elem, scalars[si++].second, pargs[k], e)) bad = true;
    }
  }
  std::vector<rt::ViewExtent> ext;
  std::string err;
  bool probed = !bad && interp.probe_views(s.fn, pargs, blocks, ext, err);
  // Buffer sizes: the probe's, exact or adjusted by a few elements.
  std::vector<size_t> bytes(s.params.size(), 0);
  size_t total = 0;
  for (size_t k = 0; k < s.params.size(); ++k) {
    if (s.params[k].kind != rt::ParamInfo::Kind::Ptr) continue;
    uint8_t adj = r.byte();
    int64_t need = probed && k < ext.size() && ext[k].seen ? ext[k].max_elems : 16;
    int64_t have = (sizing & 3) == 0 ? need : need + int64_t(adj % 9) - 4;
    bytes[k] = size_t(std::max<int64_t>(0, std::min<int64_t>(have, int64_t(1) << 22))) * dtype_bytes(s.params[k].elem);
    total += bytes[k];
  }
  if (total > (size_t(64) << 20)) return 0;  // too slow to be useful
  // The interpreter on heap buffers (ASan sees every access).
  std::vector<rt::NpyArray> arrays(s.params.size());
  rt::LaunchRequest req;
  req.module = s.m.get();
  req.fn = s.fn;
  req.blocks = blocks;
  req.threads = 1;
  req.timeout_s = 0.5;
  si = 0;
  for (size_t k = 0; k < s.params.size(); ++k) {
    const rt::ParamInfo& p = s.params[k];
    if (p.kind == rt::ParamInfo::Kind::Ptr) {
      arrays[k].dtype = rt::npy_parse_descr(rt::npy_descr(p.elem));
      if (arrays[k].dtype == DType::None) arrays[k].dtype = p.elem;
      arrays[k].shape = {int64_t(bytes[k] / std::max(1u, dtype_bytes(p.elem)))};
      arrays[k].data.assign(bytes[k], uint8_t(k * 37 + 1));
      req.args.push_back(rt::KernelArg::buffer(p.name, arrays[k]));
    } else if (p.kind == rt::ParamInfo::Kind::Scalar) {
      req.args.push_back(rt::KernelArg::scalar(p.name, scalars[si++].second));
    }
  }
  rt::launch(req, err);
  // avx2 over guarded buffers.
  if (!s.jit) return 0;
  std::vector<std::unique_ptr<test::GuardedBuffer>> guarded;
  req.native = s.jit.get();
  req.args.clear();
  si = 0;
  for (size_t k = 0; k < s.params.size(); ++k) {
    const rt::ParamInfo& p = s.params[k];
    if (p.kind == rt::ParamInfo::Kind::Ptr) {
      guarded.push_back(std::make_unique<test::GuardedBuffer>(bytes[k], (sizing >> 2) & 1));
      test::GuardedBuffer& g = *guarded.back();
      if (!g.ok()) return 0;
      std::memset(g.data(), int(k * 37 + 1), bytes[k]);
      DType d = rt::npy_parse_descr(rt::npy_descr(p.elem));
      req.args.push_back(rt::KernelArg::memory(p.name, d == DType::None ? p.elem : d, g.data(), bytes[k]));
    } else if (p.kind == rt::ParamInfo::Kind::Scalar) {
      req.args.push_back(rt::KernelArg::scalar(p.name, scalars[si++].second));
    }
  }
  rt::launch(req, err);
  for (const auto& g : guarded)
    if (!g->check()) {
      std::fprintf(stderr, "fuzz_launch: %s: avx2 wrote outside a buffer\n", s.name.c_str());
      std::abort();
    }
  return 0;
}
