// Making a kernel ready to launch on its target (prepare.h).
#include "prepare.h"

#include <cstdlib>
#include <cstring>

#include "bochs_runner.h"
#include "qemu_runner.h"
#include "target.h"

namespace ptoas::rt {

const cg::Target* runnable_target(const std::string& name, bool have_ptx_text, std::string& err) {
  if (name == "interp") return &cg::target("avx2");
  const cg::Target* tg = name == "host" ? cg::host_target() : cg::find_target(name);
  if (!tg) {
    err = name == "host" ? "target host: this CPU runs none of the native targets (" + cg::target_names(true) + ")"
                         : "unknown target '" + name + "' (the targets: interp, " + cg::target_names() + ")";
    return nullptr;
  }
  bool ptx = tg->isa == cg::Isa::Nvptx && (tg->has_backend() || have_ptx_text);
  bool amdgpu = tg->isa == cg::Isa::Amdgcn && tg->has_backend();
  if (!tg->packed_thunk && tg->isa != cg::Isa::AscendNpu && !ptx && !amdgpu) {
    err = "target " + std::string(tg->name) + (tg->has_backend() ? " has no JIT" : " is not implemented yet") +
          "; run it on interp instead";
    return nullptr;
  }
  return tg;
}

void PreparedKernel::bind(LaunchRequest& req) const {
  if (target && target->packed_thunk) req.native = &jit;
  if (cce_launch.kernel) {
    req.run_blocks = cce_run_blocks;
    req.run_ctx = const_cast<CceLaunch*>(&cce_launch);
  }
  if (ptx.program) {
    req.run_blocks = ptx_run_blocks;
    req.run_ctx = const_cast<PtxKernel*>(&ptx);
  }
  if (amdgpu.program) {
    req.run_blocks = amdgpu_run_blocks;
    req.run_ctx = const_cast<AmdgpuKernel*>(&amdgpu);
  }
}

namespace {

bool prepare_x86(const Module& m, InstId fn, const PrepareOptions& o, PreparedKernel& k, Diag& diag,
                 std::string& err, PrepareFailure& why) {
  const std::string name(k.target->name);
  const bool can = cpu_supports(name);
  const bool bochs = o.force_bochs || !can;
  if (bochs) {
    k.notes.push_back(can ? "PTOAS_FORCE_BOCHS is set; running under Bochs"
                          : "this CPU cannot run " + name + " code; running under Bochs");
    if (!bochs_available(&err)) {
      why = PrepareFailure::Missing;
      return false;
    }
  }
  return bochs ? k.jit.load_for_bochs(m, fn, name, diag, err) : k.jit.load(m, fn, name, diag, err);
}

bool prepare_sve(const Module& m, InstId fn, const PrepareOptions& o, PreparedKernel& k, Diag& diag,
                 std::string& err, PrepareFailure& why) {
  const std::string name(k.target->name);
  const bool native = cpu_supports(name);
  if (!native) {
    std::string missing;
    if (!qemu_available(&missing)) {
      err = "target " + name + ": this CPU has no SVE and " + missing;
      why = PrepareFailure::Missing;
      return false;
    }
    k.notes.push_back("this CPU has no SVE; running under qemu-aarch64 at " +
                      std::to_string(o.sve_vl_bits ? o.sve_vl_bits : qemu_default_vl_bits()) + "-bit SVE");
  }
  return native ? k.jit.load(m, fn, name, diag, err) : k.jit.load_for_emulator(m, fn, name, diag, err);
}

bool prepare_ptx(Module& m, InstId fn, const PrepareOptions& o, PreparedKernel& k, Diag& diag, std::string& err,
                 PrepareFailure& why) {
  PtxRunner runner;
  if (!ptx_runner_from_env(runner, err)) {
    why = PrepareFailure::Usage;
    return false;
  }
  k.ptx.name = o.ptx_name;
  k.ptx.timeout_s = o.timeout_s;
  std::string not_gpu;
  if (!ptx_build(m, fn, o.codegen, runner, k.ptx, diag, err, o.ptx_text, &not_gpu)) return false;
  if (k.ptx.on_gpu)
    k.notes.push_back("running the PTX on " + k.ptx.where);
  else if (runner == PtxRunner::Interp)
    k.notes.push_back("PTOAS_PTX_RUNNER=interp; running the PTX on the project's interpreter");
  else
    k.notes.push_back("no NVIDIA GPU here (" + not_gpu + "); running the PTX on the project's interpreter");
  return true;
}

}  // namespace

bool prepare_kernel(Module& m, InstId fn, const PrepareOptions& o, PreparedKernel& k, Diag& diag, std::string& err,
                    PrepareFailure* why_out) {
  PrepareFailure why = PrepareFailure::Program;
  k.target = nullptr;
  k.notes.clear();
  bool ok = true;
  if (o.target != "interp") {
    k.target = runnable_target(o.target, o.ptx_text != nullptr, err);
    if (!k.target) {
      ok = false;
    } else {
      k.jit.set_codegen_options(o.codegen);
      switch (k.target->isa) {
        case cg::Isa::X86_64: ok = prepare_x86(m, fn, o, k, diag, err, why); break;
        case cg::Isa::AArch64: ok = prepare_sve(m, fn, o, k, diag, err, why); break;
        case cg::Isa::AscendNpu:
          // The C++ ptoas writes (sync inserted unless the program has its
          // own), compiled with g++ against the CPU model.
          ok = cce_build(m, fn, true, k.cce_launch.options, k.cce, diag, err, &k.cce_cpp);
          if (ok) k.cce_launch.kernel = &k.cce;
          break;
        case cg::Isa::Nvptx: ok = prepare_ptx(m, fn, o, k, diag, err, why); break;
        case cg::Isa::Amdgcn:
          k.amdgpu.timeout_s = o.timeout_s;
          ok = amdgpu_build(m, fn, o.codegen, k.amdgpu, diag, err);
          if (ok) k.notes.push_back("running the code object on " + k.amdgpu.where);
          break;
        default: break;
      }
    }
  }
  if (why_out) *why_out = ok ? PrepareFailure::None : why;
  return ok;
}

}  // namespace ptoas::rt
