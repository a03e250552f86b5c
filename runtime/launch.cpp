// The block launcher (launch.h): argument binding and checks, output sizing
// from Interpreter::probe_views, and the worker pool (worker_pool.h) over
// the blocks.
#include "launch.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include "bochs_runner.h"
#include "file_output.h"
#include "qemu_runner.h"
#include "worker_pool.h"
#include "elem.h"

namespace ptoas::rt {

std::vector<ParamInfo> kernel_params(const Module& m, InstId fn) {
  std::vector<ParamInfo> out;
  if (fn >= m.insts.size()) return out;
  const Inst& f = m.inst(fn);
  if (f.op != Op::Func || f.n_regions == 0) return out;
  const Region& r = m.region(f, 0);
  for (unsigned i = 0; i < r.arg_count; ++i) {
    ValueId v = m.region_arg(r, i);
    const Type& t = m.type_of(v);
    ParamInfo p;
    p.name = std::string(m.str(m.values[v].name));
    p.type_text = std::string(m.types.text(m.values[v].type));
    p.elem = t.elem;
    p.kind = t.kind == TypeKind::Ptr      ? ParamInfo::Kind::Ptr
             : t.kind == TypeKind::Scalar ? ParamInfo::Kind::Scalar
                                          : ParamInfo::Kind::Other;
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

// Parses an unsigned magnitude: decimal or 0x hex. False on junk/overflow.
bool parse_magnitude(const std::string& s, size_t i, uint64_t& v, bool& hex) {
  hex = false;
  if (i + 1 < s.size() && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    hex = true;
    i += 2;
  }
  if (i >= s.size()) return false;
  v = 0;
  unsigned base = hex ? 16 : 10;
  for (; i < s.size(); ++i) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9') d = unsigned(c - '0');
    else if (hex && c >= 'a' && c <= 'f') d = unsigned(c - 'a' + 10);
    else if (hex && c >= 'A' && c <= 'F') d = unsigned(c - 'A' + 10);
    else if (c == '_' || c == '\'') continue;  // digit separators
    else return false;
    if (v > (std::numeric_limits<uint64_t>::max() - d) / base) return false;
    v = v * base + d;
  }
  return true;
}

unsigned int_bits(DType t) {
  switch (t) {
    case DType::I8: case DType::U8: return 8;
    case DType::I16: case DType::U16: return 16;
    case DType::I32: case DType::U32: return 32;
    default: return 64;
  }
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

}  // namespace

bool parse_scalar(DType t, const std::string& text, Arg& out, std::string& err) {
  std::string tn(dtype_name(t));
  if (text.empty()) {
    err = "empty value for a " + tn + " parameter";
    return false;
  }
  if (t == DType::I1) {
    out.kind = Arg::Kind::Int;
    if (text == "true" || text == "True" || text == "1") out.i = 1;
    else if (text == "false" || text == "False" || text == "0") out.i = 0;
    else {
      err = "'" + text + "' is not an i1 value (true, false, 1 or 0)";
      return false;
    }
    return true;
  }
  if (dtype_is_float(t)) {
    const char* b = text.c_str();
    char* e = nullptr;
    errno = 0;
    double v = std::strtod(b, &e);
    if (e == b || *e != '\0' || std::isspace((unsigned char)text[0])) {
      err = "'" + text + "' is not a " + tn + " value";
      return false;
    }
    if ((errno == ERANGE && std::isinf(v)) ||
        (std::isfinite(v) && (t == DType::F32 || t == DType::F16 || t == DType::BF16) &&
         std::isinf(round_to(t, v)))) {
      err = "'" + text + "' is out of range for " + tn;
      return false;
    }
    out.kind = Arg::Kind::Float;
    out.f = v;
    return true;
  }
  if (dtype_is_int(t) || t == DType::Index) {
    bool neg = false;
    size_t i = 0;
    if (text[0] == '-' || text[0] == '+') {
      neg = text[0] == '-';
      i = 1;
    }
    uint64_t mag;
    bool hex;
    if (!parse_magnitude(text, i, mag, hex)) {
      // All digits but too long for 64 bits is a range error; the rest is junk.
      bool digits = i < text.size() && std::all_of(text.begin() + long(i), text.end(), [](char c) {
        return std::isxdigit((unsigned char)c) || c == 'x' || c == 'X';
      });
      err = digits && text.size() > i + 16 ? "'" + text + "' is out of range for " + tn
                                           : "'" + text + "' is not an integer (" + tn + ")";
      return false;
    }
    unsigned bits = int_bits(t);
    bool is_unsigned = dtype_is_unsigned(t);
    uint64_t umax = bits == 64 ? ~0ull : (1ull << bits) - 1;
    uint64_t smax = umax >> 1;
    bool ok;
    if (is_unsigned) ok = !neg || mag == 0 ? mag <= umax : false;
    else if (neg) ok = mag <= smax + 1;
    else ok = mag <= (hex ? umax : smax);  // hex may spell the bit pattern
    if (!ok) {
      err = "'" + text + "' is out of range for " + tn;
      return false;
    }
    uint64_t u = neg ? uint64_t(0) - mag : mag;
    out.kind = Arg::Kind::Int;
    out.i = wrap_to(t, int64_t(u));
    return true;
  }
  err = "scalar type " + tn + " cannot be passed from the host";
  return false;
}

bool launch(const LaunchRequest& req, std::string& err, bool* run_error) {
  err.clear();
  if (run_error) *run_error = false;
  if (!req.module) {
    err = "no module";
    return false;
  }
  const Module& m = *req.module;
  if (req.fn >= m.insts.size() || m.inst(req.fn).op != Op::Func || m.inst(req.fn).n_regions == 0) {
    err = "the function to run is not a function definition";
    return false;
  }
  std::string fname = "@" + std::string(m.attr_word(m.inst(req.fn), "sym_name"));
  std::vector<std::string> errs;
  if (req.blocks < 1) errs.push_back("the block count must be at least 1 (got " + std::to_string(req.blocks) + ")");
  if (req.blocks > kMaxBlocks)
    errs.push_back("the block count must be at most " + std::to_string(kMaxBlocks) + " (got " +
                   std::to_string(req.blocks) + ")");
  if (!(req.timeout_s >= 0) || req.timeout_s > 1e9)
    errs.push_back("the time limit must be from 0 (none) to 1e9 seconds");

  // Bind names.
  std::vector<ParamInfo> params = kernel_params(m, req.fn);
  std::vector<std::string> names;
  for (const ParamInfo& p : params) names.push_back(p.name);
  std::vector<int> which(params.size(), -1);
  for (size_t i = 0; i < req.args.size(); ++i) {
    std::string n = req.args[i].name;
    if (!n.empty() && n[0] == '%') n.erase(0, 1);
    auto it = std::find(names.begin(), names.end(), n);
    if (it == names.end()) {
      errs.push_back("unknown argument '" + n + "': " + fname +
                     (names.empty() ? " takes no parameters" : " has parameters " + join(names)));
      continue;
    }
    size_t k = size_t(it - names.begin());
    if (which[k] >= 0) {
      errs.push_back("parameter %" + n + " is given more than once");
      continue;
    }
    which[k] = int(i);
  }

  // Check kinds and parse the scalars.
  std::vector<Arg> args(params.size());
  for (size_t k = 0; k < params.size(); ++k) {
    const ParamInfo& p = params[k];
    std::string pn = "parameter %" + p.name;
    if (p.kind == ParamInfo::Kind::Other) {
      errs.push_back(pn + " has type " + p.type_text +
                     ", which cannot be passed from the host (only !pto.ptr and scalar parameters can)");
      continue;
    }
    if (which[k] < 0) {
      errs.push_back("missing argument for " + pn + " (" + p.type_text + ")");
      continue;
    }
    const KernelArg& a = req.args[size_t(which[k])];
    if (p.kind == ParamInfo::Kind::Ptr) {
      if (a.kind == KernelArg::Kind::Scalar || (!a.array && !a.data)) {
        errs.push_back(pn + " is a pointer (" + p.type_text + "): pass an array, not a value");
        continue;
      }
      args[k].kind = Arg::Kind::Ptr;
      if (a.kind == KernelArg::Kind::Buffer && !npy_dtype_matches(p.elem, a.buffer_dtype())) {
        std::string want(npy_descr(p.elem));
        std::string have(npy_descr(a.buffer_dtype()));
        errs.push_back(pn + " is " + p.type_text + " but the array's dtype is " +
                       (have.empty() ? "unsupported" : "'" + have + "' (" + std::string(dtype_name(a.buffer_dtype())) + ")") +
                       (want.empty() ? "; element type " + std::string(dtype_name(p.elem)) + " has no .npy equivalent"
                                     : "; expected '" + want + "'"));
      }
      if (a.kind == KernelArg::Kind::Output && npy_descr(p.elem).empty())
        errs.push_back(pn + ": element type " + std::string(dtype_name(p.elem)) +
                       " has no .npy equivalent");
    } else {
      if (a.kind != KernelArg::Kind::Scalar) {
        errs.push_back(pn + " is a scalar (" + p.type_text + "): pass a value, not an array");
        continue;
      }
      std::string e;
      if (!parse_scalar(p.elem, a.text, args[k], e)) errs.push_back(pn + ": " + e);
    }
  }
  auto fail = [&] {
    err.clear();
    for (size_t i = 0; i < errs.size(); ++i) err += (i ? "\n" : "") + errs[i];
    return false;
  };
  if (!errs.empty()) return fail();

  // What the views reach, for every block.
  Interpreter interp(m);
  using Clock = Interpreter::Clock;
  const bool limited = req.timeout_s > 0;
  const Clock::time_point deadline =
      limited ? Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(req.timeout_s))
              : Clock::time_point::max();
  if (limited) interp.set_deadline(deadline, req.timeout_s);
  auto remaining_s = [&] {
    return std::max(0.001, std::chrono::duration<double>(deadline - Clock::now()).count());
  };
  auto timed_out = [&] { return limited && Clock::now() >= deadline; };
  char limit_text[32];
  std::snprintf(limit_text, sizeof limit_text, "%g", req.timeout_s);
  std::vector<ViewExtent> ext;
  {
    std::string e;
    if (!interp.probe_views(req.fn, args, req.blocks, ext, e, req.threads)) {
      err = e + " (in the view probe, before any block ran)";
      if (run_error) *run_error = true;
      return false;
    }
  }
  // Outputs are at most the input limit each (what ptorun could read back).
  uint64_t max_bytes;
  {
    std::string e;
    if (!max_input_bytes(max_bytes, e)) {
      err = e;
      return false;
    }
  }
  // The arrays given first, then the outputs: a request that fails on an
  // existing array allocates nothing.
  for (int pass = 0; pass < 2; ++pass)
  for (size_t k = 0; k < params.size(); ++k) {
    const ParamInfo& p = params[k];
    if (p.kind != ParamInfo::Kind::Ptr) continue;
    const KernelArg& a = req.args[size_t(which[k])];
    if ((a.kind == KernelArg::Kind::Output) != (pass == 1)) continue;
    if (pass == 1 && !errs.empty()) break;
    const ViewExtent& x = k < ext.size() ? ext[k] : ViewExtent{};
    uint64_t esize = dtype_bytes(p.elem);
    std::string pn = "parameter %" + p.name;
    if (a.kind == KernelArg::Kind::Output) {
      if (!x.seen) {
        errs.push_back("cannot size the output for " + pn +
                       ": the kernel builds no tensor view on it; pass an existing array instead");
        continue;
      }
      int64_t prod = 1;
      bool over = false;
      for (int64_t d : x.shape) {
        if (d < 0 || (d > 0 && prod > std::numeric_limits<int64_t>::max() / d)) over = true;
        else prod *= d;
      }
      uint64_t n = uint64_t(x.max_elems);
      NpyArray out;
      out.dtype = p.elem;
      if (!over && prod >= x.max_elems) {
        out.shape = x.shape;
        n = uint64_t(prod);
      } else {
        out.shape = {x.max_elems};  // views beyond the largest one's shape: flat
      }
      if (n > max_bytes / esize) {
        errs.push_back("the output for " + pn + " would need " + std::to_string(n) +
                       " elements, more than this runner allocates (the input limit of " +
                       std::to_string(max_bytes) + " bytes; " + kMaxInputEnv + " sets it)");
        continue;
      }
      try {
        out.data.assign(size_t(n * esize), 0);
      } catch (const std::bad_alloc&) {
        errs.push_back("cannot allocate " + std::to_string(n * esize) + " bytes for the output for " + pn);
        continue;
      }
      *a.array = std::move(out);
    } else if (x.seen) {
      uint64_t need = uint64_t(std::max<int64_t>(0, x.max_elems));
      uint64_t have = a.buffer_bytes() / esize;
      if (have < need)
        errs.push_back("the array for " + pn + " is too small: the kernel's views reach " +
                       std::to_string(need) + " elements (" + std::to_string(need * esize) +
                       " bytes) but it holds " + std::to_string(have) + " (" +
                       std::to_string(a.buffer_bytes()) + " bytes)");
    }
  }
  if (!errs.empty()) return fail();
  if (req.check_only) return true;

  for (size_t k = 0; k < params.size(); ++k)
    if (args[k].kind == Arg::Kind::Ptr) {
      const KernelArg& a = req.args[size_t(which[k])];
      args[k].data = a.buffer_data();
      args[k].bytes = a.buffer_bytes();
    }

  // Run the blocks: workers take block numbers in order; after a failure no
  // new block starts. Every block below a failing one has started by then,
  // so the lowest failing block is the same whatever the timing.
  const int64_t nb = req.blocks;
  if (req.run_blocks) return req.run_blocks(req.run_ctx, args, nb, err);
  // A kernel loaded for Bochs: every block in one boot, in order; the runner
  // copies the buffers in and back (runtime/bochs/bochs_runner.h).
  if (req.native && req.native->under_bochs()) {
    std::vector<BochsJob> jobs{bochs_job(m, req.fn, *req.native->image(), args, nb)};
    BochsOptions bo;
    if (limited) bo.timeout_s = remaining_s();
    BochsResult res;
    std::string e;
    if (!bochs_run(jobs, bo, res, e)) {
      err = "under Bochs: " + (res.job_errors.empty() || res.job_errors[0].empty() ? e : res.job_errors[0]);
      if (timed_out()) err = std::string("the run exceeded the time limit of ") + limit_text + " s (under Bochs)";
      return false;
    }
    return true;
  }
  // A kernel loaded for qemu: every block in one qemu-aarch64 run, in order
  // (runtime/qemu/qemu_runner.h).
  if (req.native && req.native->under_qemu()) {
    std::vector<QemuJob> jobs{qemu_job(m, req.fn, *req.native->image(), args, nb)};
    QemuOptions qo;
    qo.vl_bits = req.sve_vl_bits;
    if (limited) qo.timeout_s = remaining_s();
    QemuResult res;
    std::string e;
    if (!qemu_run(jobs, qo, res, e)) {
      err = "under qemu-aarch64: " + (res.job_errors.empty() || res.job_errors[0].empty() ? e : res.job_errors[0]);
      if (timed_out()) err = std::string("the run exceeded the time limit of ") + limit_text + " s (under qemu-aarch64)";
      return false;
    }
    return true;
  }
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  unsigned nt = req.threads ? req.threads : hw;
  nt = unsigned(std::min<int64_t>(nt, nb));
  std::atomic<int64_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  int64_t fail_block = std::numeric_limits<int64_t>::max();
  std::string fail_msg;
  auto worker = [&] {
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      int64_t b = next.fetch_add(1);
      if (b >= nb) return;
      std::string e;
      bool ok;
      try {
        if (req.native) {
          req.native->run(args, b, nb);
          ok = true;
        } else {
          ok = interp.run_block(req.fn, args, b, nb, e);
        }
      } catch (const std::exception& x) {
        ok = false;
        e = std::string("runtime error: ") + x.what();
      }
      if (!ok) {
        std::lock_guard<std::mutex> lock(mu);
        if (b < fail_block) {
          fail_block = b;
          fail_msg = e;
        }
        stop = true;
      }
    }
  };
  // Native code cannot be interrupted: a watchdog hands a run past its
  // deadline to the caller's handler, which ends the process.
  std::mutex wd_mu;
  std::condition_variable wd_cv;
  bool wd_done = false;
  std::thread watchdog;
  if (limited && req.native && req.on_native_timeout) {
    try {
      watchdog = std::thread([&] {
        std::unique_lock<std::mutex> lock(wd_mu);
        if (!wd_cv.wait_until(lock, deadline, [&] { return wd_done; })) req.on_native_timeout(req.timeout_s);
      });
    } catch (const std::system_error&) {
      err = "cannot start the watchdog thread that enforces the time limit";
      return false;
    }
  }
  // The calling thread and nt - 1 of the pool's (fewer if they cannot be
  // started: the rest run on the ones we have), kept for the next launch
  // with their stacks (worker_pool.h).
  run_on_workers(nt - 1, worker);
  if (watchdog.joinable()) {
    {
      std::lock_guard<std::mutex> lock(wd_mu);
      wd_done = true;
    }
    wd_cv.notify_all();
    watchdog.join();
  }
  if (fail_block != std::numeric_limits<int64_t>::max()) {
    err = fail_msg + " (block " + std::to_string(fail_block) + " of " + std::to_string(nb) + ")";
    if (run_error) *run_error = true;
    return false;
  }
  return true;
}

}  // namespace ptoas::rt
