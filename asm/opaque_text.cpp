#include "opaque_text.h"

namespace ptoas {

namespace {
bool operand_word_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
         ch == '.' || ch == '%';
}
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}
}  // namespace

size_t find_word(std::string_view text, std::string_view w, size_t from, bool clauses_only) {
  if (w.empty()) return std::string_view::npos;
  int depth = 0;
  for (size_t i = from; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '(' || ch == '[' || ch == '<') ++depth;
    else if ((ch == ')' || ch == ']' || ch == '>') && depth > 0) --depth;
    else if (clauses_only && depth == 0 && (ch == '{' || ch == ':')) return std::string_view::npos;
    if (text.compare(i, w.size(), w) != 0) continue;
    bool left = i == 0 || !operand_word_char(text[i - 1]);
    bool right = i + w.size() >= text.size() || !operand_word_char(text[i + w.size()]);
    if (left && right) return i;
  }
  return std::string_view::npos;
}

bool paren_after(std::string_view text, size_t at, std::string_view& inside) {
  size_t i = at;
  while (i < text.size() && text[i] == ' ') ++i;
  if (i >= text.size() || text[i] != '(') return false;
  int depth = 0;
  for (size_t j = i; j < text.size(); ++j) {
    if (text[j] == '(') ++depth;
    else if (text[j] == ')' && --depth == 0) {
      inside = trim(text.substr(i + 1, j - i - 1));
      return true;
    }
  }
  return false;
}

std::vector<std::string_view> split_items(std::string_view inside) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= inside.size(); ++i) {
    char ch = i < inside.size() ? inside[i] : ',';
    if (ch == '(' || ch == '[' || ch == '<') ++depth;
    else if ((ch == ')' || ch == ']' || ch == '>') && depth > 0) --depth;
    else if (ch == ',' && depth == 0) {
      std::string_view item = trim(inside.substr(start, i - start));
      if (!item.empty()) out.push_back(item);
      start = i + 1;
    }
  }
  return out;
}

std::string clause_item(std::string_view inside, std::string_view key) {
  for (std::string_view item : split_items(inside)) {
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    if (trim(item.substr(0, eq)) == key) return std::string(trim(item.substr(eq + 1)));
  }
  return {};
}

ValueId operand_named(const Module& m, const Inst& in, std::string_view name) {
  if (!name.empty() && name[0] == '%') name.remove_prefix(1);
  unsigned n = unsigned(in.n_ins) + in.n_outs;
  for (unsigned i = 0; i < n; ++i) {
    size_t k = size_t(in.opnd) + i;
    if (k >= m.operands.size()) break;
    ValueId v = m.operands[k];
    if (v < m.values.size() && m.values[v].name != kNone && m.str(m.values[v].name) == name) return v;
  }
  return kNone;
}

bool ptr_parts(std::string_view t, std::string& elem, std::string& space) {
  if (t.rfind("!pto.ptr<", 0) != 0 || t.back() != '>') return false;
  std::string_view b = t.substr(9, t.size() - 10);
  int depth = 0;
  size_t comma = std::string_view::npos;
  for (size_t i = 0; i < b.size(); ++i) {
    if (b[i] == '<') ++depth;
    else if (b[i] == '>') --depth;
    else if (b[i] == ',' && depth == 0) comma = i;
  }
  elem = std::string(trim(b.substr(0, comma)));
  space = comma == std::string_view::npos ? "gm" : std::string(trim(b.substr(comma + 1)));
  return true;
}

std::string_view type_list_text(std::string_view body) {
  int depth = 0;
  size_t colon = std::string_view::npos;
  for (size_t i = 0; i < body.size(); ++i) {
    char ch = body[i];
    if (ch == '(' || ch == '[' || ch == '<' || ch == '{') ++depth;
    else if ((ch == ')' || ch == ']' || ch == '>' || ch == '}') && depth > 0) --depth;
    else if (ch == ':' && depth == 0) colon = i;
  }
  return colon == std::string_view::npos ? std::string_view() : trim(body.substr(colon + 1));
}

std::string_view attr_text(const Module& m, const Inst& in, std::string_view key) {
  if (size_t(in.attrs) + in.n_attrs > m.attrs.size()) return {};
  const Attr* a = m.find_attr(in, key);
  if (!a) return {};
  if (a->word != kNone) return m.str(a->word);
  if (a->text != kNone) return m.str(a->text);
  return {};
}

std::string_view opaque_body(const Module& m, const Inst& in) { return attr_text(m, in, "__body"); }

bool bracket_pair(std::string_view body, std::string_view key, int64_t& a, int64_t& b) {
  size_t k = body.find(key);
  if (k == std::string_view::npos) return false;
  size_t open = body.find('[', k + key.size());
  if (open == std::string_view::npos) return false;
  int64_t v[2] = {-1, -1};
  size_t i = open + 1;
  for (int n = 0; n < 2; ++n) {
    while (i < body.size() && body[i] == ' ') ++i;
    if (i >= body.size() || body[i] < '0' || body[i] > '9') return false;
    int64_t x = 0;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9' && x < (int64_t(1) << 40))
      x = x * 10 + (body[i++] - '0');
    v[n] = x;
    while (i < body.size() && (body[i] == ' ' || body[i] == ',')) ++i;
  }
  a = v[0];
  b = v[1];
  return true;
}

}  // namespace ptoas
