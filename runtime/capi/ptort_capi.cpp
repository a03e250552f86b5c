// The C API (ptort.h) over the C++ runtime: the front end, the optimizer,
// prepare_kernel and the launcher. Every entry point runs its body through
// guarded(), which turns any exception into a status and a message: none
// crosses into C (or into Python's ctypes, which could not catch it).
#include "ptort.h"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "bochs_runner.h"
#include "file_output.h"
#include "frontend.h"
#include "opt.h"
#include "prepare.h"
#include "qemu_runner.h"
#include "ptort.hpp"
#include "target.h"

struct ptort_kernel {
  std::unique_ptr<ptoas::SourceFile> src;  // the module's locations point into it
  ptoas::Module module;
  ptoas::InstId fn = ptoas::kNone;
  std::string function, notes, ir, gpu_arch;  // the target's name is prepare.target
  ptoas::rt::PrepareOptions prepare;
  ptoas::rt::PreparedKernel prepared;
  std::vector<ptoas::rt::ParamInfo> params;
  std::vector<std::string> npy;  // each parameter's descriptor
  unsigned threads = 0;
  bool have_asm = false;
  std::string asm_text;
};

struct ptort_args {
  struct Output {
    std::string name;
    ptoas::rt::NpyArray array;
  };
  std::vector<ptoas::rt::KernelArg> args;  // outputs point into `outputs`
  std::deque<Output> outputs;              // stable addresses
};

namespace {

using ptoas::rt::PrepareFailure;

// A status and its message, thrown from the bodies below.
struct Failure {
  ptort_status status;
  std::string message;
};

[[noreturn]] void fail(ptort_status s, std::string msg) { throw Failure{s, std::move(msg)}; }

void set_error(char** error, const std::string& msg) {
  if (!error) return;
  *error = nullptr;
  std::string m = msg.empty() || msg.back() == '\n' ? msg : msg + "\n";
  char* p = static_cast<char*>(std::malloc(m.size() + 1));
  if (!p) return;
  std::memcpy(p, m.c_str(), m.size() + 1);
  *error = p;
}

// Test hook (tests/capi): PTORT_TEST_THROW=<entry point> throws a C++
// exception inside that entry point, so a test can check that it comes out
// as PTORT_E_INTERNAL with a message and not as a crash.
void test_hook(const char* entry) {
  const char* e = std::getenv("PTORT_TEST_THROW");
  if (e && std::strcmp(e, entry) == 0) throw std::runtime_error(std::string("test exception in ") + entry);
}

template <class F>
ptort_status guarded(const char* entry, char** error, F&& body) {
  if (error) *error = nullptr;
  try {
    test_hook(entry);
    body();
    return PTORT_OK;
  } catch (const Failure& f) {
    set_error(error, f.message);
    return f.status;
  } catch (const std::bad_alloc&) {
    set_error(error, std::string(entry) + ": out of memory");
  } catch (const std::exception& e) {
    set_error(error, std::string(entry) + ": internal error: " + e.what());
  } catch (...) {
    set_error(error, std::string(entry) + ": internal error");
  }
  return PTORT_E_INTERNAL;
}

// For the entry points that return a value rather than a status: the value,
// or `dflt` after any exception.
template <class T, class F>
T guarded_value(const char* entry, T dflt, F&& body) {
  try {
    test_hook(entry);
    return body();
  } catch (...) {
    return dflt;
  }
}

void need(const void* p, const char* what) {
  if (!p) fail(PTORT_E_USAGE, std::string(what) + " is NULL");
}

double parse_number(const std::string& key, const std::string& v, double lo, double hi) {
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !(d >= lo && d <= hi))
    fail(PTORT_E_USAGE, "option " + key + "=" + v + ": expected a number from " + std::to_string(int64_t(lo)) +
                            " to " + std::to_string(int64_t(hi)));
  return d;
}

struct CompileOptions {
  int opt_level = 2;
  std::string function;
  std::string gpu_arch;
  unsigned sve_vl = 0;
  double timeout_s = 600;
  unsigned threads = 0;
  ptoas::FrontendOptions frontend;
};

CompileOptions parse_options(const char* text) {
  CompileOptions o;
  if (!text) return o;
  std::string s(text);
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\n') ++j;
    if (j == i) break;
    std::string w = s.substr(i, j - i);
    i = j;
    size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) fail(PTORT_E_USAGE, "option '" + w + "': expected KEY=VALUE");
    std::string k = w.substr(0, eq), v = w.substr(eq + 1);
    if (k == "opt" || k == "O") o.opt_level = int(parse_number(k, v, 0, 2));
    else if (k == "function") o.function = v;
    else if (k == "arch") {
      if (v != "a3" && v != "a5") fail(PTORT_E_USAGE, "option arch=" + v + ": expected a3 or a5");
      o.frontend.arch_from_cli = true;
      o.frontend.arch = v == "a5" ? ptoas::Arch::A5 : ptoas::Arch::A3;
    }
    else if (k == "gpu-arch") o.gpu_arch = v;
    else if (k == "sve-vl") {
      o.sve_vl = unsigned(parse_number(k, v, 128, 2048));
      if (!ptoas::rt::qemu_valid_vl_bits(o.sve_vl))
        fail(PTORT_E_USAGE, "option sve-vl=" + v + ": expected a multiple of 128 from 128 to 2048");
    } else if (k == "timeout") o.timeout_s = parse_number(k, v, 0, 1e9);
    else if (k == "threads") o.threads = unsigned(parse_number(k, v, 0, 4096));
    else
      fail(PTORT_E_USAGE, "unknown option '" + k + "' (the options: opt, function, arch, gpu-arch, sve-vl, timeout, threads)");
  }
  return o;
}

void compile(std::unique_ptr<ptoas::SourceFile> src, const char* target_c, const char* options,
             ptort_kernel** out) {
  need(target_c, "target");
  need(out, "out");
  *out = nullptr;
  CompileOptions co = parse_options(options);
  auto k = std::make_unique<ptort_kernel>();
  k->src = std::move(src);
  std::string err;
  std::string target = target_c;
  const ptoas::cg::Target* tg = ptoas::rt::runnable_target(target, false, err);
  if (!tg) fail(PTORT_E_USAGE, err);
  if (target == "host") target = std::string(tg->name);
  if (!co.gpu_arch.empty()) {
    bool known = false;
    for (std::string_view w : ptoas::cg::split_words(tg->gpu_archs)) known |= w == co.gpu_arch;
    if (!known)
      fail(PTORT_E_USAGE, "option gpu-arch=" + co.gpu_arch + ": not an architecture of target " + target +
                              (tg->gpu_archs.empty() ? " (it has none)" : " (" + std::string(tg->gpu_archs) + ")"));
  }
  ptoas::Diag diag(k->src.get());
  diag.set_echo(false);
  auto program_error = [&](const std::string& extra) {
    std::string m = diag.text();
    if (!extra.empty()) m += (m.empty() || m.back() == '\n' ? "" : "\n") + extra;
    fail(PTORT_E_PROGRAM, m.empty() ? "the program was refused" : m);
  };
  if (!ptoas::run_frontend(*k->src, co.frontend, k->module, diag)) program_error("");
  ptoas::opt::Options oo;
  oo.level = ptoas::opt::Level(co.opt_level);
  if (!ptoas::opt::optimize(k->module, oo, ptoas::cg::opt_target(*tg), diag)) program_error("");
  {
    ptoas::rt::Interpreter interp(k->module);
    k->fn = interp.find_function(co.function, err);
  }
  if (k->fn == ptoas::kNone) fail(PTORT_E_USAGE, err);
  k->function = std::string(k->module.attr_word(k->module.inst(k->fn), "sym_name"));
  k->ir = ptoas::print_module(k->module);
  k->gpu_arch = co.gpu_arch;
  k->threads = co.threads;
  ptoas::rt::PrepareOptions& po = k->prepare;
  po.target = target;
  po.codegen.gpu_arch = k->gpu_arch;  // a view of the kernel's string
  po.sve_vl_bits = co.sve_vl;
  po.timeout_s = co.timeout_s;
  po.force_bochs = ptoas::rt::bochs_forced();
  po.ptx_name = k->src->name() + ".ptx";
  PrepareFailure why = PrepareFailure::None;
  if (!ptoas::rt::prepare_kernel(k->module, k->fn, po, k->prepared, diag, err, &why)) {
    if (why == PrepareFailure::Missing) fail(PTORT_E_UNAVAILABLE, err);
    if (why == PrepareFailure::Usage) fail(PTORT_E_USAGE, err);
    program_error(err);
  }
  for (const std::string& n : k->prepared.notes) k->notes += n + "\n";
  k->params = ptoas::rt::kernel_params(k->module, k->fn);
  for (const auto& p : k->params) k->npy.emplace_back(ptoas::rt::npy_descr(p.elem));
  *out = k.release();
}

ptoas::DType parse_buffer_dtype(const std::string& s) {
  ptoas::DType d = ptoas::rt::npy_parse_descr(s);
  if (d == ptoas::DType::None) d = ptoas::parse_dtype(s);
  if (d == ptoas::DType::None) fail(PTORT_E_USAGE, "unknown dtype '" + s + "' (a dtype name, f32, or a numpy descriptor, <f4)");
  return d;
}

void check_new_name(const ptort_args* a, const std::string& name) {
  for (const auto& x : a->args)
    if (x.name == name) fail(PTORT_E_USAGE, "argument " + name + " is given more than once");
}

void add_arg(ptort_args* a, ptoas::rt::KernelArg arg) {
  check_new_name(a, arg.name);
  a->args.push_back(std::move(arg));
}

ptort_status run(const char* entry, const ptort_kernel* k, ptort_args* a, int64_t blocks, bool check_only,
                 char** error) {
  return guarded(entry, error, [&] {
    need(k, "kernel");
    need(a, "args");
    if (blocks < 1 || blocks > ptoas::rt::kMaxBlocks)
      fail(PTORT_E_USAGE, "blocks=" + std::to_string(blocks) + ": expected 1 to " + std::to_string(ptoas::rt::kMaxBlocks));
    ptoas::rt::LaunchRequest req;
    req.module = &k->module;
    req.fn = k->fn;
    req.args = a->args;
    req.blocks = blocks;
    req.threads = k->threads;
    req.sve_vl_bits = k->prepare.sve_vl_bits;
    req.timeout_s = k->prepare.timeout_s;
    req.check_only = check_only;
    k->prepared.bind(req);
    std::string err;
    bool run_error = false;
    if (!ptoas::rt::launch(req, err, &run_error)) fail(run_error ? PTORT_E_RUN : PTORT_E_ARGS, err);
  });
}

}  // namespace

extern "C" {

const char* ptort_version(void) { return PTOAS_VERSION; }

void ptort_free(void* p) { std::free(p); }

ptort_status ptort_compile(const char* filename, const char* source, size_t size, const char* target,
                           const char* options, ptort_kernel** out, char** error) {
  return guarded("ptort_compile", error, [&] {
    need(source, "source");
    uint64_t limit = 0;
    std::string err;
    if (!ptoas::max_input_bytes(limit, err)) fail(PTORT_E_USAGE, err);
    if (size > limit)
      fail(PTORT_E_PROGRAM, "the source is " + std::to_string(size) + " bytes, more than the input limit of " +
                                std::to_string(limit) + " (" + ptoas::kMaxInputEnv + " sets it)");
    compile(std::make_unique<ptoas::SourceFile>(filename ? filename : "<memory>", std::string(source, size)),
            target, options, out);
  });
}

ptort_status ptort_compile_file(const char* path, const char* target, const char* options, ptort_kernel** out,
                                char** error) {
  return guarded("ptort_compile_file", error, [&] {
    need(path, "path");
    std::string text, err;
    ptoas::ReadStatus st = ptoas::read_file_bounded(path, text, err);
    if (st != ptoas::ReadStatus::Ok)
      fail(st == ptoas::ReadStatus::CannotOpen ? PTORT_E_USAGE : PTORT_E_PROGRAM,
           std::string("cannot read '") + path + "': " + err);
    compile(std::make_unique<ptoas::SourceFile>(path, std::move(text)), target, options, out);
  });
}

void ptort_kernel_free(ptort_kernel* k) { delete k; }

const char* ptort_kernel_target(const ptort_kernel* k) { return k ? k->prepare.target.c_str() : nullptr; }
const char* ptort_kernel_function(const ptort_kernel* k) { return k ? k->function.c_str() : nullptr; }
const char* ptort_kernel_notes(const ptort_kernel* k) { return k ? k->notes.c_str() : nullptr; }
const char* ptort_kernel_ir(const ptort_kernel* k) { return k ? k->ir.c_str() : nullptr; }

const char* ptort_kernel_asm(ptort_kernel* k, char** error) {
  ptort_status s = guarded("ptort_kernel_asm", error, [&] {
    need(k, "kernel");
    if (k->have_asm) return;
    const ptoas::cg::Target* tg = k->prepared.target;
    if (!tg) fail(PTORT_E_USAGE, "target interp has no code; the IR is ptort_kernel_ir's");
    std::string text;
    if (tg->isa == ptoas::cg::Isa::AscendNpu) {
      text = k->prepared.cce_cpp;
    } else {
      ptoas::Diag diag(k->src.get());
      diag.set_echo(false);
      ptoas::cg::CodegenOptions o = k->prepare.codegen;
      ptoas::cg::ModuleCode code;
      if (!ptoas::cg::compile_module(k->module, *tg, code, diag, o)) fail(PTORT_E_PROGRAM, diag.text());
      text = tg->answers_emit("asm") ? ptoas::cg::asm_listing(k->module, code) : std::string();
      if (text.empty()) {
        std::string err;
        if (!ptoas::cg::write_object(k->module, code, text, err)) fail(PTORT_E_PROGRAM, err);
      }
    }
    k->asm_text = std::move(text);
    k->have_asm = true;
  });
  return s == PTORT_OK ? k->asm_text.c_str() : nullptr;
}

int ptort_kernel_param_count(const ptort_kernel* k) {
  return guarded_value("ptort_kernel_param_count", -1, [&] { return k ? int(k->params.size()) : -1; });
}

ptort_status ptort_kernel_param(const ptort_kernel* k, int index, ptort_param* out) {
  return guarded("ptort_kernel_param", nullptr, [&] {
    need(k, "kernel");
    need(out, "out");
    if (index < 0 || size_t(index) >= k->params.size()) fail(PTORT_E_USAGE, "no parameter " + std::to_string(index));
    const ptoas::rt::ParamInfo& p = k->params[size_t(index)];
    out->name = p.name.c_str();
    out->kind = p.kind == ptoas::rt::ParamInfo::Kind::Ptr      ? PTORT_PARAM_POINTER
                : p.kind == ptoas::rt::ParamInfo::Kind::Scalar ? PTORT_PARAM_SCALAR
                                                               : PTORT_PARAM_OTHER;
    out->dtype = ptoas::dtype_name(p.elem).data();
    out->npy_descr = k->npy[size_t(index)].c_str();
    out->type = p.type_text.c_str();
  });
}

ptort_args* ptort_args_new(void) {
  return guarded_value("ptort_args_new", static_cast<ptort_args*>(nullptr), [] { return new ptort_args; });
}

void ptort_args_free(ptort_args* a) { delete a; }

ptort_status ptort_args_scalar(ptort_args* a, const char* name, const char* value) {
  return guarded("ptort_args_scalar", nullptr, [&] {
    need(a, "args");
    need(name, "name");
    need(value, "value");
    add_arg(a, ptoas::rt::KernelArg::scalar(name, value));
  });
}

ptort_status ptort_args_buffer(ptort_args* a, const char* name, const char* dtype, void* data, size_t bytes) {
  return guarded("ptort_args_buffer", nullptr, [&] {
    need(a, "args");
    need(name, "name");
    need(dtype, "dtype");
    if (!data && bytes) fail(PTORT_E_USAGE, "data is NULL");
    add_arg(a, ptoas::rt::KernelArg::memory(name, parse_buffer_dtype(dtype), static_cast<uint8_t*>(data), bytes));
  });
}

ptort_status ptort_args_output(ptort_args* a, const char* name) {
  return guarded("ptort_args_output", nullptr, [&] {
    need(a, "args");
    need(name, "name");
    check_new_name(a, name);  // before the output exists
    ptort_args::Output& o = a->outputs.emplace_back();
    o.name = name;
    a->args.push_back(ptoas::rt::KernelArg::output(name, o.array));
  });
}

ptort_status ptort_args_get_output(const ptort_args* a, const char* name, const void** data, size_t* bytes,
                                   const char** dtype, int* ndim, const int64_t** shape) {
  return guarded("ptort_args_get_output", nullptr, [&] {
    need(a, "args");
    need(name, "name");
    for (const ptort_args::Output& o : a->outputs) {
      if (o.name != name) continue;
      if (o.array.dtype == ptoas::DType::None) fail(PTORT_E_USAGE, std::string("output ") + name + " has not been sized yet (check or launch first)");
      if (data) *data = o.array.data.data();
      if (bytes) *bytes = o.array.data.size();
      if (dtype) *dtype = ptoas::dtype_name(o.array.dtype).data();
      if (ndim) *ndim = int(o.array.shape.size());
      if (shape) *shape = o.array.shape.data();
      return;
    }
    fail(PTORT_E_USAGE, std::string("no output named ") + name);
  });
}

ptort_status ptort_check(const ptort_kernel* k, ptort_args* a, int64_t blocks, char** error) {
  return run("ptort_check", k, a, blocks, true, error);
}

ptort_status ptort_launch(const ptort_kernel* k, ptort_args* a, int64_t blocks, char** error) {
  return run("ptort_launch", k, a, blocks, false, error);
}

}  // extern "C"
