// The target registry (target.h): the folders of targets.def, each listing
// its descriptors.
#include <cstdio>
#include <cstdlib>

#include "codegen.h"
#include "refusal.h"
#include "target.h"

namespace ptoas::cg {

#define PTOAS_TARGET_FOLDER(f) std::vector<const Target*> f##_targets();
#include "targets.def"
#undef PTOAS_TARGET_FOLDER

bool Target::answers_emit(std::string_view emit) const {
  std::string_view s = emits;
  while (!s.empty()) {
    size_t sp = s.find(' ');
    if (s.substr(0, sp) == emit) return true;
    if (sp == std::string_view::npos) break;
    s.remove_prefix(sp + 1);
  }
  return false;
}

bool never_fusable(const Module&, const Inst&) { return false; }

std::string_view refusal_code_name(RefusalCode c) {
  switch (c) {
    case RefusalCode::Type: return "unsupported-type";
    case RefusalCode::Layout: return "unsupported-layout";
    case RefusalCode::Shape: return "unsupported-shape";
    case RefusalCode::Operands: return "unsupported-operands";
    case RefusalCode::Attribute: return "unsupported-attribute";
    case RefusalCode::Control: return "unsupported-control";
    case RefusalCode::Limit: return "limit";
  }
  return "unsupported";
}

const std::vector<const Target*>& targets() {
  static const std::vector<const Target*> all = [] {
    std::vector<const Target*> v;
#define PTOAS_TARGET_FOLDER(f)                    \
  for (const Target* t : f##_targets()) v.push_back(t);
#include "targets.def"
#undef PTOAS_TARGET_FOLDER
    return v;
  }();
  return all;
}

const Target* find_target(std::string_view name) {
  for (const Target* t : targets()) {
    if (t->name == name) return t;
    std::string_view s = t->aliases;
    while (!s.empty()) {
      size_t sp = s.find(' ');
      if (s.substr(0, sp) == name) return t;
      if (sp == std::string_view::npos) break;
      s.remove_prefix(sp + 1);
    }
  }
  return nullptr;
}

const Target& target(std::string_view name) {
  const Target* t = find_target(name);
  if (!t) {
    std::fprintf(stderr, "ptoas: internal error: no target named '%.*s'\n", int(name.size()), name.data());
    std::abort();
  }
  return *t;
}

// The registry's order puts the narrower of two targets a CPU runs first
// (avx2 before avx512): the widest is the last that runs.
const Target* host_target() {
  const Target* best = nullptr;
  for (const Target* t : targets())
    if (t->cpu_can_run && t->has_backend() && t->cpu_can_run()) best = t;
  return best;
}

std::string target_names(bool with_backend_only) {
  std::string s;
  for (const Target* t : targets()) {
    if (!t->listed || (with_backend_only && !t->has_backend())) continue;
    if (!s.empty()) s += ", ";
    s += t->name;
  }
  return s;
}

}  // namespace ptoas::cg
