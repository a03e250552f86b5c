// ptoas's descriptors of the plugin targets (targets.def's
// PTOAS_PLUGIN_TARGET_FOLDER): each is its folder's shape (target.h,
// PluginShape) whose backend functions open libptoas_llvm.so on their
// first call and forward to the plugin's descriptor of the same name.
//
// Why: those backends link LLVM's MC layers, whose static constructors
// (command-line options, target registries) and pages cost every ptoas
// process 1.1-1.9 ms on this machine kind, whatever its target
// (docs/bench.md, compile time). Linked into ptoas only; every other
// program and test links the backends themselves (libptoas_codegen).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "codegen.h"
#include "object_file.h"
#include "plugin_abi.h"
#include "plugin_loader.h"
#include "target.h"

namespace ptoas::cg {

namespace {

constexpr size_t kMaxProxies = 8;

struct ProxySlot {
  Target proxy;
  unsigned hooks = 0;
  std::once_flag once;
  const Target* real = nullptr;
  std::string err;
};

std::array<ProxySlot, kMaxProxies> slots;
size_t slots_used = 0;

const Target* load(ProxySlot& s) {
  std::string err;
  auto abi = reinterpret_cast<PtoasPluginAbi>(plugin_symbol(kLlvmPlugin, "ptoas_plugin_abi", err));
  auto find = reinterpret_cast<PtoasPluginTarget>(plugin_symbol(kLlvmPlugin, "ptoas_plugin_target", err));
  std::string what = "target " + std::string(s.proxy.name) + ": its code generator";
  if (!abi || !find) {
    s.err = what + ": " + err;
    return nullptr;
  }
  if (abi() != kPluginAbi) {
    s.err = what + ": " + kLlvmPlugin + " is from another build of ptoas (reinstall both)";
    return nullptr;
  }
  const Target* t = find(std::string(s.proxy.name).c_str());
  if (!t || hooks_of(*t) != s.hooks) {
    s.err = what + ": " + kLlvmPlugin + (t ? " describes it otherwise" : " has no such target");
    return nullptr;
  }
  return t;
}

// The plugin's descriptor behind slot I; nullptr with `err` when it cannot
// be loaded (each call says why).
template <size_t I>
const Target* real(std::string* err = nullptr) {
  ProxySlot& s = slots[I];
  std::call_once(s.once, [] { slots[I].real = load(slots[I]); });
  if (!s.real && err) *err = s.err;
  return s.real;
}

// The trampolines of slot I. Those without an error channel are called
// only after the slot's compile succeeded, so the plugin is loaded then.
template <size_t I>
bool compile(const Module& m, InstId fn, const Target&, const CodegenOptions& o, FuncCode& out, Diag& diag) {
  std::string err;
  const Target* t = real<I>(&err);
  if (!t) {
    diag.error_global(err);
    return false;
  }
  return t->compile(m, fn, *t, o, out, diag);
}

template <size_t I>
std::vector<uint8_t> rodata() {
  const Target* t = real<I>();
  return t ? t->rodata() : std::vector<uint8_t>{};
}

template <size_t I>
bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err) {
  const Target* t = real<I>(&err);
  return t && t->build_output(m, code, out, err);
}

template <size_t I>
std::vector<ListedInst> decode(const uint8_t* code, size_t n, uint64_t base) {
  const Target* t = real<I>();
  return t ? t->decode(code, n, base) : std::vector<ListedInst>{};
}

template <size_t I>
std::string listing(const Module& m, const ModuleCode& code) {
  const Target* t = real<I>();
  return t ? t->listing(m, code) : std::string();
}

template <size_t I>
std::string code_stats(const FuncCode& f) {
  const Target* t = real<I>();
  return t ? t->code_stats(f) : std::string();
}

template <size_t I>
bool packed_thunk(const Module& m, InstId fn, size_t thunk_pos, size_t kernel_pos, std::vector<uint8_t>& out,
                  std::string& err) {
  const Target* t = real<I>(&err);
  return t && t->packed_thunk(m, fn, thunk_pos, kernel_pos, out, err);
}

// The shape with slot I's trampolines for the functions its backend has.
template <size_t I>
void fill(ProxySlot& s, const PluginShape& p) {
  Target t = *p.shape;
  if (p.hooks & kHookCompile) t.compile = compile<I>;
  if (p.hooks & kHookRodata) t.rodata = rodata<I>;
  if (p.hooks & kHookBuildOutput) t.build_output = build_output<I>;
  if (p.hooks & kHookDecode) t.decode = decode<I>;
  if (p.hooks & kHookListing) t.listing = listing<I>;
  if (p.hooks & kHookCodeStats) t.code_stats = code_stats<I>;
  if (p.hooks & kHookPackedThunk) t.packed_thunk = packed_thunk<I>;
  s.proxy = t;
  s.hooks = p.hooks;
}

template <size_t... I>
void fill_slot(size_t i, const PluginShape& p, std::index_sequence<I...>) {
  ((i == I ? fill<I>(slots[I], p) : void()), ...);
}

std::vector<const Target*> proxies(const std::vector<PluginShape>& shapes) {
  std::vector<const Target*> out;
  for (const PluginShape& p : shapes) {
    if (slots_used == kMaxProxies) {
      std::fprintf(stderr, "ptoas: internal error: more than %zu plugin targets (plugin_proxy.cpp)\n", kMaxProxies);
      std::abort();
    }
    fill_slot(slots_used, p, std::make_index_sequence<kMaxProxies>());
    out.push_back(&slots[slots_used++].proxy);
  }
  return out;
}

}  // namespace

// The registry (target_registry.cpp) calls each folder's list once.
#define PTOAS_TARGET_FOLDER(f)
#define PTOAS_PLUGIN_TARGET_FOLDER(f)     \
  std::vector<PluginShape> f##_shapes(); \
  std::vector<const Target*> f##_targets() { return proxies(f##_shapes()); }
#include "targets.def"
#undef PTOAS_PLUGIN_TARGET_FOLDER
#undef PTOAS_TARGET_FOLDER

}  // namespace ptoas::cg
