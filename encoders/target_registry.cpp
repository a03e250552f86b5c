// The target registry (target.h): the folders of targets.def, each listing
// its descriptors.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "codegen.h"
#include "refusal.h"
#include "target.h"

namespace ptoas::cg {

#define PTOAS_TARGET_FOLDER(f) std::vector<const Target*> f##_targets();
#include "targets.def"
#undef PTOAS_TARGET_FOLDER

std::vector<std::string_view> split_words(std::string_view list) {
  std::vector<std::string_view> words;
  while (!list.empty()) {
    size_t sp = list.find(' ');
    if (sp != 0) words.push_back(list.substr(0, sp));
    if (sp == std::string_view::npos) break;
    list.remove_prefix(sp + 1);
  }
  return words;
}

bool Target::answers_emit(std::string_view emit) const {
  for (std::string_view w : split_words(emits))
    if (w == emit) return true;
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
    case RefusalCode::Layer: return "unsupported-layer";
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
    for (std::string_view a : split_words(t->aliases))
      if (a == name) return t;
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

std::vector<std::string> emit_kinds() {
  std::vector<std::string> kinds{"ir"};
  auto add = [&](std::string_view k) {
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.emplace_back(k);
  };
  for (const Target* t : targets()) {
    for (std::string_view k : split_words(t->emits)) add(k);
    add(t->default_emit);
  }
  return kinds;
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
