#include "cce_run.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "data_dir.h"
#include "model_api.h"
#include "pto/model/abi.h"

namespace ptoas::rt {

namespace {

// The thunk appended to the kernel: the runner passes the arguments as an
// array of ArgVal, converted to each parameter's C++ type.
const char* kThunk = R"(
// ---- appended by ptoas's CCE runner (runtime/cce_run.cpp) ----
#include <cstddef>
#include <type_traits>
#include <utility>
namespace ptoas_cce_thunk {
struct ArgVal { void* p; long long i; double f; };
template <class P> P conv(const ArgVal& a) {
  if constexpr (std::is_pointer_v<P>) return static_cast<P>(a.p);
  else if constexpr (std::is_integral_v<P>) return P(a.i);
  else if constexpr (std::is_floating_point_v<P>) return P(a.f);
  else return P(float(a.f));
}
template <class... P, std::size_t... I>
void call(void (*f)(P...), const ArgVal* a, std::index_sequence<I...>) { f(conv<P>(a[I])...); }
template <class... P>
void call(void (*f)(P...), const ArgVal* a) { call(f, a, std::index_sequence_for<P...>{}); }
template <class... P>
constexpr int count(void (*)(P...)) { return int(sizeof...(P)); }
}
extern "C" __attribute__((visibility("default"))) int ptoas_cce_param_count() {
  return ptoas_cce_thunk::count(&PTOAS_CCE_ENTRY);
}
extern "C" __attribute__((visibility("default"))) void ptoas_cce_entry(const void* a) {
  ptoas_cce_thunk::call(&PTOAS_CCE_ENTRY, static_cast<const ptoas_cce_thunk::ArgVal*>(a));
}
)";

struct ArgVal {
  void* p;
  long long i;
  double f;
};

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The CPU model's headers: the caller's, $PTOAS_CCE_MODEL_INCLUDE, else
// share/ptoas/cce_model/include (data_dir.h); "" with where in *where.
std::string include_dir(const CceRunOptions& o, std::string* where = nullptr) {
  if (!o.include_dir.empty()) return o.include_dir;
  if (const char* e = std::getenv("PTOAS_CCE_MODEL_INCLUDE"); e && *e) return e;
  return data_path("cce_model/include", where);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string cce_entry_name(std::string_view cpp, const std::string& want, std::string& err) {
  std::vector<std::string> found;
  for (size_t pos = cpp.find("__global__"); pos != cpp.npos; pos = cpp.find("__global__", pos + 1)) {
    if ((pos > 0 && is_ident(cpp[pos - 1])) || (pos + 10 < cpp.size() && is_ident(cpp[pos + 10])))
      continue;
    // __global__ AICORE void NAME(
    size_t paren = cpp.find('(', pos);
    if (paren == cpp.npos) continue;
    size_t e = paren;
    while (e > pos && std::isspace(static_cast<unsigned char>(cpp[e - 1]))) --e;
    size_t b = e;
    while (b > pos && is_ident(cpp[b - 1])) --b;
    if (b < e) found.emplace_back(cpp.substr(b, e - b));
  }
  if (!want.empty()) {
    for (auto& f : found)
      if (f == want) return f;
    err = "the kernel has no __global__ function '" + want + "'";
    return "";
  }
  if (found.size() == 1) return found[0];
  err = found.empty() ? "the kernel has no __global__ function"
                      : "the kernel has " + std::to_string(found.size()) +
                            " __global__ functions; name the one to run";
  return "";
}

CceKernel::~CceKernel() {
  if (handle_) dlclose(handle_);
}

bool cce_compile(std::string_view cpp, const CceRunOptions& o, CceKernel& k, std::string& err,
                 double* seconds) {
  auto t0 = std::chrono::steady_clock::now();
  std::string entry = cce_entry_name(cpp, o.entry, err);
  if (entry.empty()) return false;
  char tmpl[] = "/tmp/ptoas-cce-XXXXXX";
  if (!mkdtemp(tmpl)) {
    err = "cannot create a temporary directory";
    return false;
  }
  std::filesystem::path dir(tmpl);
  auto cleanup = [&] {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  };
  std::string src = (dir / "kernel.cpp").string(), so = (dir / "kernel.so").string();
  {
    std::ofstream f(src);
    f << cpp << "\n#define PTOAS_CCE_ENTRY " << entry << "\n" << kThunk;
    if (!f) {
      err = "cannot write " + src;
      cleanup();
      return false;
    }
  }
  std::string where, inc = include_dir(o, &where);
  if (inc.empty()) {
    err = "the CPU model's headers (cce_model/include) are not in " + where;
    cleanup();
    return false;
  }
  std::string cmd = shell_quote(o.cxx) + " -std=c++17 -O1 -fPIC -shared -I" + shell_quote(inc) + " -o " +
                    shell_quote(so) + " " + shell_quote(src);
  for (auto& d : o.defines) cmd += " " + shell_quote("-D" + d);
  for (auto& fl : o.extra_flags) cmd += " " + shell_quote(fl);
  cmd += " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    err = "cannot run " + o.cxx;
    cleanup();
    return false;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  if (seconds) *seconds = since(t0);
  if (st != 0) {
    err = o.cxx + " failed on the kernel:\n" + out;
    cleanup();
    return false;
  }
  // The kernel's calls into the model resolve against the global scope:
  // the model is there when a program links it (ptorun), not when an
  // embedder dlopen'ed libptort.so locally (Python's ctypes). Promoting
  // the loaded model makes both the same.
  Dl_info model{};
  if (dladdr(reinterpret_cast<void*>(&pto_model_block_idx), &model) && model.dli_fname)
    dlopen(model.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  cleanup();
  if (!h) {
    err = std::string("cannot load the kernel: ") + dlerror();
    return false;
  }
  if (k.handle_) dlclose(k.handle_);
  k.handle_ = h;
  k.entry_ = reinterpret_cast<void (*)(const void*)>(dlsym(h, "ptoas_cce_entry"));
  auto count = reinterpret_cast<int (*)()>(dlsym(h, "ptoas_cce_param_count"));
  k.nparams_ = count ? count() : 0;
  if (!k.entry_) {
    err = "the kernel has no entry thunk";
    return false;
  }
  if (seconds) *seconds = since(t0);
  return true;
}

bool cce_launch(CceKernel& k, const std::vector<Arg>& args, const CceRunOptions& o, CceRunResult& r) {
  auto t0 = std::chrono::steady_clock::now();
  r.ok = false;
  if (!k.loaded()) {
    r.error = "no kernel loaded";
    return false;
  }
  if (int(args.size()) != k.nparams_) {
    r.error = "the kernel takes " + std::to_string(k.nparams_) + " arguments, " +
              std::to_string(args.size()) + " given";
    return false;
  }
  std::vector<ArgVal> av(args.size() + 1);
  for (size_t i = 0; i < args.size(); ++i)
    av[i] = {args[i].data, (long long)args[i].i,
             args[i].kind == Arg::Kind::Int ? double(args[i].i) : args[i].f};
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].kind == Arg::Kind::Float) av[i].i = (long long)args[i].f;
  cce_model::reset(o.arch, o.schedule);
  int64_t n = std::max<int64_t>(1, o.block_num);
  for (int64_t b = 0; b < n; ++b) {
    cce_model::begin_block(b, n);
    k.entry_(av.data());
    cce_model::end_block();
  }
  r.reports.clear();
  r.error.clear();
  for (auto& rep : cce_model::take_reports()) {
    r.reports.push_back(std::string(cce_model::report_kind_name(rep.kind)) + ": " + rep.text);
    r.error += r.reports.back() + "\n";
  }
  r.ok = r.reports.empty();
  r.run_s = since(t0);
  return r.ok;
}

CceRunResult cce_run(std::string_view cpp, const std::vector<Arg>& args, const CceRunOptions& o) {
  CceRunResult r;
  CceKernel k;
  if (!cce_compile(cpp, o, k, r.error, &r.compile_s)) return r;
  cce_launch(k, args, o, r);
  return r;
}

}  // namespace ptoas::rt
