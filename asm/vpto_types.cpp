// Reading the VPTO and VMI types back from their text (vpto_types.h).
#include "vpto_types.h"

#include <charconv>

namespace ptoas {

namespace {

constexpr std::string_view kSpaces[] = {"gm", "ub", "l1", "l0a", "l0b", "l0c", "fb", "bt",
                                        "vec", "mat", "left", "right", "acc", "bias", "scaling"};

bool is_space(std::string_view w) {
  for (std::string_view s : kSpaces)
    if (s == w) return true;
  return false;
}

// `<...>` body of `text` after `prefix`, or an empty view.
std::string_view body_after(std::string_view text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix || text.size() < prefix.size() + 2) return {};
  if (text[prefix.size()] != '<' || text.back() != '>') return {};
  return text.substr(prefix.size() + 1, text.size() - prefix.size() - 2);
}

// `64xf32[, rest]`: the lane count and the element (up to a top-level ',').
bool lanes_and_elem(std::string_view b, int64_t& lanes, std::string_view& elem) {
  size_t x = b.find('x');
  if (x == 0 || x == std::string_view::npos) return false;
  auto r = std::from_chars(b.data(), b.data() + x, lanes);
  if (r.ec != std::errc() || r.ptr != b.data() + x) return false;
  std::string_view rest = b.substr(x + 1);
  int depth = 0;
  size_t end = rest.size();
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      end = i;
      break;
    }
  }
  elem = rest.substr(0, end);
  while (!elem.empty() && elem.back() == ' ') elem.remove_suffix(1);
  return !elem.empty();
}

}  // namespace

unsigned velem_bits(std::string_view e) {
  if (e.substr(0, 5) == "!pto.") {
    e.remove_prefix(5);
    if (e == "bf16x2") return 32;
    if (e == "f4E2M1x2" || e == "f4E1M2x2" || e == "hif8" || e == "f8E8M0") return 8;
    return 0;
  }
  if (e.substr(0, 2) == "f8") return 8;
  if (e == "bf16") return 16;
  size_t i = 0;
  while (i < e.size() && !(e[i] >= '0' && e[i] <= '9')) ++i;
  std::string_view pre = e.substr(0, i), num = e.substr(i);
  if (pre != "f" && pre != "i" && pre != "ui" && pre != "si") return 0;
  unsigned bits = 0;
  auto r = std::from_chars(num.data(), num.data() + num.size(), bits);
  if (r.ec != std::errc() || r.ptr != num.data() + num.size()) return 0;
  bool ok = pre == "f" ? bits == 16 || bits == 32 || bits == 64
                       : bits == 8 || bits == 16 || bits == 32 || bits == 64 || (bits == 1 && pre == "i");
  return ok ? bits : 0;
}

VType parse_vtype(std::string_view t) {
  VType v;
  if (t == "!pto.align") {
    v.kind = VKind::Align;
    return v;
  }
  if (std::string_view b = body_after(t, "!pto.vreg"); !b.empty()) {
    if (lanes_and_elem(b, v.lanes, v.elem) && v.elem.size() + 1 + (b.find('x')) == b.size()) {
      v.kind = VKind::VReg;
      v.elem_bits = velem_bits(v.elem);
    }
    return v;
  }
  if (std::string_view b = body_after(t, "!pto.mask"); !b.empty()) {
    v.kind = VKind::Mask;
    v.elem = b;
    return v;
  }
  if (std::string_view b = body_after(t, "!pto.vmi.vreg"); !b.empty()) {
    if (lanes_and_elem(b, v.lanes, v.elem)) {
      v.kind = VKind::VmiVReg;
      v.elem_bits = velem_bits(v.elem);
    }
    return v;
  }
  if (std::string_view b = body_after(t, "!pto.vmi.mask"); !b.empty()) {
    if (lanes_and_elem(b, v.lanes, v.elem)) v.kind = VKind::VmiMask;
    return v;
  }
  if (std::string_view b = body_after(t, "!pto.ptr"); !b.empty()) {
    size_t comma = b.rfind(',');
    if (comma != std::string_view::npos) {
      std::string_view s = b.substr(comma + 1);
      while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
      if (is_space(s)) {
        v.kind = VKind::Ptr;
        v.space = s;
        v.elem = b.substr(0, comma);
        v.elem_bits = velem_bits(v.elem);
      }
    }
    return v;
  }
  return v;
}

std::string canonical_vtype_text(std::string t) {
  for (std::string_view p : {"!pto.vreg<", "!pto.vmi.vreg<", "!pto.vmi.mask<"}) {
    if (t.compare(0, p.size(), p) != 0) continue;
    size_t i = p.size();
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    if (i == p.size()) return t;
    if (t.compare(i, 3, " x ") == 0) t.replace(i, 3, "x");
    else if (t.compare(i, 2, " x") == 0) t.replace(i, 2, "x");
    else if (t.compare(i, 2, "x ") == 0) t.replace(i, 2, "x");
    return t;
  }
  return t;
}

namespace bind {

bool ptr_is_vpto_only(const Binder& b, const Binder::Cursor& in) {
  uint32_t i = in.pos;
  if (i >= in.end) return false;
  bool dtype_elem = false;
  Tok k = b.kind(i);
  if (k == Tok::Ident && b.text(i) == "vector") {
    if (i + 1 >= in.end || b.kind(i + 1) != Tok::LAngle) return false;
    i = b.partner(i + 1) + 1;
  } else if (k == Tok::Ident) {
    std::string_view w = b.text(i);
    dtype_elem = parse_dtype(w) != DType::None;
    if (!dtype_elem && velem_bits(w) == 0) return false;
    ++i;
  } else if (k == Tok::TypeAlias) {
    if (b.text(i).substr(0, 5) != "!pto.") return false;
    ++i;
    if (i < in.end && b.kind(i) == Tok::LAngle) i = b.partner(i) + 1;
  } else {
    return false;
  }
  if (i == in.end) return !dtype_elem;
  if (b.kind(i) != Tok::Comma || i + 2 != in.end || b.kind(i + 1) != Tok::Ident) return false;
  std::string_view space = b.text(i + 1);
  if (!is_space(space)) return false;
  return space != "gm" || !dtype_elem;
}

// A comma-separated list of types over [b, e), or false if it is not one.
static bool type_run(Binder& b, uint32_t from, uint32_t to, std::vector<TypeId>& out) {
  Binder::Cursor c = b.cursor(from, to);
  if (c.peek() == Tok::LParen) {
    b.parse_type_list(c, out);
    return c.done();
  }
  while (!c.done()) {
    out.push_back(b.parse_type(c));
    if (!c.done() && !c.accept(Tok::Comma)) return false;
  }
  return !out.empty();
}

bool vpto_result_types(Binder& b, uint32_t body_b, uint32_t body_e, size_t n,
                       std::vector<TypeId>& out) {
  uint32_t arrow = kNoIndex, colon = kNoIndex, to = kNoIndex;
  for (uint32_t i = body_b; i < body_e; ++i) {
    Tok k = b.kind(i);
    if (k == Tok::LParen || k == Tok::LBracket || k == Tok::LAngle || k == Tok::LBrace) {
      i = b.partner(i);
      continue;
    }
    if (k == Tok::Arrow) arrow = i;
    if (k == Tok::Colon && colon == kNoIndex) colon = i;
    if (k == Tok::Ident && b.text(i) == "to" && colon != kNoIndex) to = i;
  }
  out.clear();
  uint32_t from = arrow != kNoIndex ? arrow : to != kNoIndex ? to : colon;
  if (from == kNoIndex || !type_run(b, from + 1, body_e, out)) return false;
  return out.size() == n;
}

}  // namespace bind
}  // namespace ptoas
