// cce_pair FILE.pto FILE.cpp [a3|a5] [name=value ...] (scalars default to
// 2, i1 to 1, floats to 1.5): runs a .pto on the
// interpreter and its emitted C++ on the CPU model (in program order, so
// that a kernel without sync still computes), on the same deterministic
// inputs, and compares every buffer byte for byte; prints the model's
// reports. A developer's check of the emitter and the model together (the
// execution differential does it for the corpus). Exit 0: equal buffers.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "cce_run.h"
#include "diag.h"
#include "elem.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"

using namespace ptoas;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cce_pair FILE.pto FILE.cpp [a3|a5] [name=value ...]\n");
    return 2;
  }
  auto slurp = [](const char* p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  // The arch: argv[3] if given, else the module's (as ptoas emits it).
  bool arch_given = argc > 3 && (std::strcmp(argv[3], "a3") == 0 || std::strcmp(argv[3], "a5") == 0);
  Arch arch = arch_given && std::strcmp(argv[3], "a5") == 0 ? Arch::A5 : Arch::A3;
  std::map<std::string, std::string> given;
  for (int i = 4; i < argc; ++i) {
    std::string kv = argv[i];
    size_t eq = kv.find('=');
    if (eq != kv.npos) given[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  SourceFile src(argv[1], slurp(argv[1]));
  Diag d(&src);
  Module m;
  FrontendOptions fo;
  fo.arch_from_cli = arch_given;
  fo.arch = arch;
  fo.level = src.text().find("level3") != std::string_view::npos ? Level::Level3 : Level::Level2;
  if (!run_frontend(src, fo, m, d)) {
    std::fprintf(stderr, "%s", d.text().c_str());
    return 1;
  }
  arch = m.arch;
  rt::Interpreter in(m);
  std::string err;
  InstId fn = in.find_function("", err);
  if (fn == kNone) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  const Inst& f = m.inst(fn);
  const Region& body = m.region(f, 0);
  std::vector<rt::Arg> args(body.arg_count);
  for (unsigned i = 0; i < body.arg_count; ++i) {
    ValueId v = m.region_arg(body, i);
    const Type& t = m.type_of(v);
    std::string name(m.str(m.values[v].name));
    if (t.kind == TypeKind::Ptr) {
      args[i].kind = rt::Arg::Kind::Ptr;
    } else if (dtype_is_float(t.elem)) {
      args[i].kind = rt::Arg::Kind::Float;
      args[i].f = given.count(name) ? std::stod(given[name]) : 1.5;
    } else {
      args[i].kind = rt::Arg::Kind::Int;
      args[i].i = given.count(name) ? std::stoll(given[name]) : t.elem == DType::I1 ? 1 : 2;
    }
  }
  std::vector<rt::ViewExtent> ext;
  if (!in.probe_views(fn, args, 1, ext, err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  std::vector<std::vector<uint8_t>> a_bufs(args.size()), b_bufs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind != rt::Arg::Kind::Ptr) continue;
    const Type& t = m.type_of(m.region_arg(body, unsigned(i)));
    size_t es = std::max(1u, dtype_bytes(t.elem));
    size_t n = size_t(std::max<int64_t>(ext[i].max_elems, 1));
    a_bufs[i].resize(n * es);
    for (size_t k = 0; k < n; ++k) {
      uint8_t* p = a_bufs[i].data() + k * es;
      double x = double(int((k * 7919 + i * 104729) % 17) - 8) * 0.25;
      if (dtype_is_float(t.elem)) rt::store_f(p, t.elem, x);
      else rt::store_i(p, t.elem, int64_t(k % 13));
    }
    b_bufs[i] = a_bufs[i];
  }
  auto with = [&](std::vector<std::vector<uint8_t>>& bufs) {
    std::vector<rt::Arg> x = args;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].kind == rt::Arg::Kind::Ptr) {
        x[i].data = bufs[i].data();
        x[i].bytes = bufs[i].size();
      }
    return x;
  };
  if (!in.run_block(fn, with(a_bufs), 0, 1, err)) {
    std::fprintf(stderr, "interpreter: %s\n", err.c_str());
    return 1;
  }
  rt::CceRunOptions o;
  o.arch = arch;
  o.schedule = cce_model::Schedule::InOrder;
  std::string cpp = slurp(argv[2]);
  rt::CceRunResult r = rt::cce_run(cpp, with(b_bufs), o);
  std::printf("compile %.2f s, run %.4f s\n", r.compile_s, r.run_s);
  if (!r.ok && r.reports.empty()) {
    std::printf("model failed: %s\n", r.error.c_str());
    return 1;
  }
  for (auto& s : r.reports) std::printf("report: %s\n", s.c_str());
  int bad = 0;
  for (size_t i = 0; i < args.size(); ++i)
    if (a_bufs[i] != b_bufs[i]) {
      std::printf("buffer %zu differs\n", i);
      ++bad;
    }
  std::printf(bad ? "DIFFERENT\n" : "EQUAL\n");
  return bad ? 1 : 0;
}
