// Running a kernel's AMDGPU code object on the interpreter or through HIP
// (amdgpu_run.h).
#include "amdgpu_run.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "amdgpu/code_object.h"
#include "elem.h"
#include "hip_driver.h"
#include "launch.h"

namespace ptoas::rt {

namespace {

// A parameter's bytes in the kernarg segment, as the PTX declares it
// (the amdgpu backend keeps the PTX parameter layout).
unsigned param_bytes(const ParamInfo& p) {
  if (p.kind == ParamInfo::Kind::Ptr) return 8;
  switch (p.elem) {
    case DType::I64: case DType::U64: case DType::Index: case DType::F64: return 8;
    case DType::I32: case DType::U32: case DType::F32: return 4;
    case DType::I16: case DType::U16: case DType::F16: case DType::BF16: return 2;
    default: return 1;
  }
}

enum class Runner : uint8_t { Auto, Interp, Hip };

bool runner_from_env(Runner& r, std::string& err) {
  r = Runner::Auto;
  const char* e = std::getenv("PTOAS_AMDGPU_RUNNER");
  if (!e || !*e || std::strcmp(e, "auto") == 0) return true;
  if (std::strcmp(e, "interp") == 0) r = Runner::Interp;
  else if (std::strcmp(e, "hip") == 0) r = Runner::Hip;
  else {
    err = std::string("PTOAS_AMDGPU_RUNNER=") + e + ": expected interp, hip or auto";
    return false;
  }
  return true;
}

// Where the code object runs: the interpreter unless HIP was asked for or,
// under auto, found. The interpreter's note keeps its old words in a build
// without the loader (nothing was looked for).
bool choose_runner(AmdgpuKernel& k, std::string& err) {
  Runner runner;
  if (!runner_from_env(runner, err)) return false;
  hip::HipDevice dev;
  std::string why;
  if (runner != Runner::Interp && hip::hip_available(&dev, why)) {
    k.on_gpu = true;
    // Only a load failure tells a mismatched gfx target (hip_driver.h).
    k.where = dev.name + " (compute capability " + std::to_string(dev.major) + "." + std::to_string(dev.minor) +
              ") through HIP, code object for " + k.chip + " (the device's gfx target is not checked)";
    return true;
  }
  if (runner == Runner::Hip) {
    err = "PTOAS_AMDGPU_RUNNER=hip, but " + why;
    return false;
  }
  k.where = "the project's AMDGPU interpreter (" + k.chip + ", " +
            (runner == Runner::Interp        ? std::string("PTOAS_AMDGPU_RUNNER=interp")
             : hip::hip_loader_built() ? "no AMD GPU here: " + why
                                       : std::string("no AMD GPU here")) +
            ")";
  return true;
}

}  // namespace

bool amdgpu_build(Module& m, InstId fn, const cg::CodegenOptions& o, AmdgpuKernel& k, Diag& diag, std::string& err) {
  k.entry = std::string(m.attr_word(m.inst(fn), "sym_name"));
  uint32_t off = 0;
  for (const ParamInfo& p : kernel_params(m, fn)) {
    unsigned b = param_bytes(p);
    off = (off + b - 1) / b * b;
    k.param_types.push_back(p.elem);
    k.offset.push_back(off);
    k.size.push_back(b);
    off += b;
  }
  k.block_count_off = (off + 7) / 8 * 8;
  k.kernarg_bytes = k.block_count_off + 8;
  const cg::Target& t = cg::target("amdgpu");
  cg::ModuleCode code;
  if (!cg::compile_module(m, t, code, diag, o)) return false;
  std::string bytes;
  if (!cg::write_object(m, code, bytes, err)) return false;
  k.hsaco.assign(bytes.begin(), bytes.end());
  for (const cg::FuncCode& f : code.funcs)
    if (f.name == k.entry) {
      cg::amdgpu::TileScratch ts = cg::amdgpu::tile_scratch(f.target_note);
      k.tile_scratch_off = ts.kernarg_off;
      k.tile_scratch_bytes = ts.bytes_per_workgroup;
      if (ts.bytes_per_workgroup) k.kernarg_bytes = std::max(k.kernarg_bytes, ts.kernarg_off + 8);
    }
  k.program = amdgpu_emu::Program::load(k.hsaco, err);
  if (!k.program) {
    err = "the code object does not load on the AMDGPU interpreter:\n" + err;
    return false;
  }
  k.chip = k.program->chip();
  return choose_runner(k, err);
}

bool amdgpu_run_blocks(void* ctx, const std::vector<Arg>& args, int64_t blocks, std::string& err) {
  auto* k = static_cast<AmdgpuKernel*>(ctx);
  if (blocks < 1 || blocks > (int64_t(1) << 31) - 1) {
    err = "an AMDGPU grid holds 1 to 2^31-1 workgroups";
    return false;
  }
  if (args.size() != k->offset.size()) {
    err = "the kernel takes " + std::to_string(k->offset.size()) + " arguments, not " + std::to_string(args.size());
    return false;
  }
  amdgpu_emu::LaunchSpec s;
  std::vector<hip::HostBuffer> hip_buffers;
  s.kernel = k->entry;
  s.kernarg.assign(k->kernarg_bytes, 0);
  s.grid_x = unsigned(blocks);
  s.block_x = k->workgroup;
  s.timeout_s = k->timeout_s;
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    uint8_t* p = s.kernarg.data() + k->offset[i];
    if (a.kind == Arg::Kind::Ptr) {
      uint64_t v = reinterpret_cast<uint64_t>(a.data);
      std::memcpy(p, &v, 8);
      s.buffers.push_back({a.data, a.bytes});
      hip_buffers.push_back({a.data, a.bytes, k->offset[i]});
      continue;
    }
    DType t = k->param_types[i];
    if (a.kind == Arg::Kind::Float) {
      // f16 / bf16 as their bits, f32 / f64 IEEE (as the PTX parameter).
      if (k->size[i] == 2 || t == DType::F32 || t == DType::F64) {
        uint8_t b[8] = {};
        store_f_bits(b, t, a.f);
        std::memcpy(p, b, k->size[i]);
        continue;
      }
    }
    uint64_t v = uint64_t(a.i);
    std::memcpy(p, &v, k->size[i]);
  }
  uint32_t n = uint32_t(blocks);
  std::memcpy(s.kernarg.data() + k->block_count_off, &n, 4);
  // The tiles' global memory, zeroed as the interpreter's tiles start
  // (the kernel also zeroes it; a GPU's fresh allocation need not be).
  std::vector<uint8_t> scratch;
  if (k->tile_scratch_bytes) {
    uint64_t total = uint64_t(k->tile_scratch_bytes) * uint64_t(blocks);
    if (total > (uint64_t(4) << 30)) {
      err = "the kernel's tiles need " + std::to_string(k->tile_scratch_bytes) + " bytes of global memory per workgroup: " +
            std::to_string(blocks) + " workgroups would take more than 4 GiB";
      return false;
    }
    scratch.assign(size_t(total), 0);
    uint64_t v = reinterpret_cast<uint64_t>(scratch.data());
    std::memcpy(s.kernarg.data() + k->tile_scratch_off, &v, 8);
    s.buffers.push_back({scratch.data(), scratch.size(), true});  // raced as the LDS is
    hip_buffers.push_back({scratch.data(), scratch.size(), k->tile_scratch_off});
  }
  if (k->on_gpu) {
    hip::RunResult res;
    if (!hip::hip_run(k->hsaco, k->entry, std::move(s.kernarg), s.grid_x, s.block_x, hip_buffers, res, err)) {
      err = "on " + k->where + ": " + err;
      return false;
    }
    return true;
  }
  if (!k->program->launch(s, k->stats, err)) {
    err = "on " + k->where + ": " + err;
    return false;
  }
  return true;
}

}  // namespace ptoas::rt
