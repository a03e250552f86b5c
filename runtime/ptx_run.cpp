// Running a kernel's PTX on a GPU or on the interpreter (ptx_run.h).
#include "ptx_run.h"

#include <cstdlib>
#include <cstring>

#include "cuda_driver.h"
#include "elem.h"
#include "launch.h"
#include "ptx/fp.h"

namespace ptoas::rt {

bool ptx_runner_from_env(PtxRunner& r, std::string& err) {
  r = PtxRunner::Auto;
  const char* e = std::getenv("PTOAS_PTX_RUNNER");
  if (!e || !*e || std::strcmp(e, "auto") == 0) return true;
  if (std::strcmp(e, "interp") == 0) r = PtxRunner::Interp;
  else if (std::strcmp(e, "gpu") == 0) r = PtxRunner::Gpu;
  else {
    err = std::string("PTOAS_PTX_RUNNER=") + e + ": expected interp, gpu or auto";
    return false;
  }
  return true;
}

bool ptx_build(Module& m, InstId fn, const cg::CodegenOptions& o, PtxRunner runner, PtxKernel& k, Diag& diag,
               std::string& err, const std::string* ptx_text, std::string* why_not_gpu) {
  k.entry = std::string(m.attr_word(m.inst(fn), "sym_name"));
  for (const ParamInfo& p : kernel_params(m, fn)) k.param_types.push_back(p.elem);
  if (ptx_text) {
    k.text = *ptx_text;
  } else {
    const cg::Target& t = cg::target("ptx");
    if (!t.has_backend()) {
      err = "target ptx is not implemented yet";
      return false;
    }
    cg::ModuleCode code;
    if (!cg::compile_module(m, t, code, diag, o)) return false;
    if (!cg::write_object(m, code, k.text, err)) return false;
  }
  k.program = ptx::Program::parse(k.text, err, k.name);
  if (!k.program) {
    err = "the PTX does not parse on the interpreter:\n" + err;
    return false;
  }
  const ptx::EntryInfo* e = k.program->entry(k.entry);
  if (!e) {
    std::string names;
    for (const ptx::EntryInfo& x : k.program->entries()) names += (names.empty() ? "" : ", ") + x.name;
    err = "the PTX has no entry '" + k.entry + "' (it has: " + (names.empty() ? "none" : names) + ")";
    return false;
  }
  if (e->params.size() != k.param_types.size()) {
    err = "entry '" + k.entry + "' takes " + std::to_string(e->params.size()) + " parameters, the function " +
          std::to_string(k.param_types.size());
    return false;
  }
  if (!e->reqntid[0]) {
    err = "entry '" + k.entry + "' has no .reqntid: the launch does not know its block size (PTX_CONTRACT)";
    return false;
  }
  cuda::Device dev;
  std::string why;
  if (runner != PtxRunner::Interp && cuda::available(&dev, why)) {
    k.on_gpu = true;
    k.where = dev.name + " (sm_" + std::to_string(dev.sm) + ") through the CUDA driver";
  } else if (runner == PtxRunner::Gpu) {
    err = "PTOAS_PTX_RUNNER=gpu, but " + why;
    return false;
  } else {
    k.where = "the project's PTX interpreter";
    if (why_not_gpu) *why_not_gpu = runner == PtxRunner::Interp ? "PTOAS_PTX_RUNNER=interp" : why;
  }
  return true;
}

namespace {

// A scalar argument as the bits of its .param (PTX_CONTRACT: integers two's
// complement at their width, f16/bf16 as bit patterns, f32/f64 IEEE).
uint64_t param_bits(const Arg& a, DType t, const ptx::ParamDecl& d) {
  if (a.kind == Arg::Kind::Float) {
    if (t == DType::F16 || t == DType::BF16) {
      // As the interpreter stores it (a NaN keeps its payload's top bits;
      // the hardware's cvt would give the canonical NaN).
      uint8_t h[2];
      store_f_bits(h, t, a.f);
      return uint64_t(h[0]) | uint64_t(h[1]) << 8;
    }
    if (d.bytes == 4) return ptx::fp::bits(float(a.f));
    return ptx::fp::bits(a.f);
  }
  uint64_t v = uint64_t(a.i);
  return d.bytes >= 8 ? v : v & ((uint64_t(1) << (8 * d.bytes)) - 1);
}

}  // namespace

bool ptx_run_blocks(void* ctx, const std::vector<Arg>& args, int64_t blocks, std::string& err) {
  auto* k = static_cast<PtxKernel*>(ctx);
  const ptx::EntryInfo* e = k->program->entry(k->entry);
  if (blocks < 1 || blocks > (int64_t(1) << 31) - 1) {
    err = "a PTX grid holds 1 to 2^31-1 blocks";
    return false;
  }
  std::vector<uint64_t> bits(args.size());
  std::vector<ptx::Buffer> bufs;
  std::vector<cuda::Param> params(args.size());
  std::vector<cuda::HostBuffer> hbufs;
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    params[i].bytes = e->params[i].bytes;
    if (a.kind == Arg::Kind::Ptr) {
      bits[i] = reinterpret_cast<uint64_t>(a.data);
      bufs.push_back({a.data, a.bytes});
      hbufs.push_back({a.data, a.bytes});
      params[i].pointer = true;
      params[i].host = a.data;
    } else {
      bits[i] = param_bits(a, i < k->param_types.size() ? k->param_types[i] : DType::None, e->params[i]);
    }
    params[i].bits = bits[i];
  }
  unsigned grid[3] = {unsigned(blocks), 1, 1};
  if (k->on_gpu) {
    cuda::RunResult res;
    if (!cuda::run(k->text, k->entry, grid, e->reqntid, unsigned(e->dynamic_shared_bytes), params, hbufs, res, err)) {
      err = "on " + k->where + ": " + err;
      return false;
    }
    k->gpu_report = "registers " + std::to_string(res.regs) + ", local " + std::to_string(res.local_bytes) +
                    " bytes, " + std::to_string(res.seconds * 1e3) + " ms";
    return true;
  }
  ptx::LaunchOptions lo;
  lo.grid[0] = grid[0];
  lo.time_limit_s = k->timeout_s;
  ptx::Fault f;
  if (!ptx::launch(*k->program, k->entry, bits, bufs, lo, f, &k->stats)) {
    err = f.message;
    if (f.kind == ptx::FaultKind::TimeLimit)
      err += "\nthe run exceeded the time limit of " + std::to_string(k->timeout_s) + " s (--timeout, PTORUN_TIMEOUT)";
    return false;
  }
  return true;
}

}  // namespace ptoas::rt
