// ptodis on PTX text (ptoas -target=ptx, docs/ptx_backend.md): the text
// with each `.loc FILE LINE COL` directive replaced by the .pto line it
// names, as a comment above the instruction group it starts. The files
// come from the module's `.file N "path"` directives, read through
// Options::read_source with the limits of ptodis.h.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "ptodis.h"
#include "source_lines.h"

namespace ptoas::dis {

namespace {

std::string_view trim(std::string_view s) {
  size_t a = 0, e = s.size();
  while (a < e && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (e > a && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(a, e - a);
}

struct Source {
  std::string path;
  bool tried = false, ok = false;
  std::string text;
  std::vector<size_t> starts;
  std::string_view line(size_t n) const {
    if (!ok || n == 0 || n > starts.size()) return {};
    size_t b = starts[n - 1], e = n < starts.size() ? starts[n] - 1 : text.size();
    return std::string_view(text).substr(b, e - b);
  }
};

}  // namespace

bool looks_like_ptx(const std::string& data) {
  size_t n = std::min<size_t>(data.size(), 4096);
  std::string_view head(data.data(), n);
  return data.compare(0, 4, "\x7f" "ELF") != 0 && head.find(".version") != std::string_view::npos &&
         head.find(".target") != std::string_view::npos;
}

bool list_ptx(const std::string& name, const std::string& data, const Options& opt, std::string& out,
              std::string& err) {
  if (!opt.function.empty()) {  // an unknown --function is an error before anything is written
    bool found = false;
    for (size_t at = data.find(".entry "); at != std::string::npos && !found; at = data.find(".entry ", at + 7)) {
      std::string_view rest = trim(std::string_view(data).substr(at + 7, opt.function.size() + 2));
      found = rest.substr(0, opt.function.size()) == opt.function &&
              (rest.size() == opt.function.size() || rest[opt.function.size()] == '(' || rest[opt.function.size()] == ' ');
    }
    if (!found) {
      err = name + ": no entry named '" + opt.function + "'";
      return false;
    }
  }
  std::map<unsigned, Source> files;
  size_t files_read = 0, source_bytes = 0;
  std::string o;
  auto emit = [&](std::string_view s) {
    if (opt.write) opt.write(s);
    else o.append(s);
  };
  // --function: only that entry (the module header is kept).
  bool in_entry = false, keep = true;
  size_t pos = 0, lineno = 0;
  while (pos < data.size()) {
    size_t e = data.find('\n', pos);
    if (e == std::string::npos) e = data.size();
    std::string_view l(data.data() + pos, e - pos);
    pos = e + 1;
    ++lineno;
    std::string_view t = trim(l);
    if (t.substr(0, 6) == ".file " || t.substr(0, 6) == ".file\t") {
      size_t q1 = t.find('"'), q2 = t.rfind('"');
      unsigned id = unsigned(std::strtoul(std::string(t.substr(6)).c_str(), nullptr, 10));
      if (q1 != std::string_view::npos && q2 > q1 && files.size() < kMaxSourceFiles)
        files[id].path = std::string(t.substr(q1 + 1, q2 - q1 - 1));
    }
    size_t ent = t.find(".entry ");
    if (ent != std::string_view::npos && !in_entry) {
      std::string_view rest = trim(t.substr(ent + 7));
      std::string fn(rest.substr(0, rest.find('(')));
      in_entry = true;
      keep = opt.function.empty() || fn == opt.function;
    }
    bool closing = in_entry && l.size() && l[0] == '}';
    if (!in_entry || keep) {
      if (opt.source && t.substr(0, 5) == ".loc ") {
        unsigned f = 0, ln = 0, col = 0;
        std::sscanf(std::string(t.substr(5)).c_str(), "%u %u %u", &f, &ln, &col);
        Source& s = files[f];
        if (!s.tried && !s.path.empty() && s.path.size() <= kMaxPath && opt.read_source && files_read < kMaxSourceFiles) {
          s.tried = true;
          ++files_read;
          if (opt.read_source(s.path, s.text) && source_bytes + s.text.size() <= kMaxSourceBytes) {
            source_bytes += s.text.size();
            s.ok = true;
            s.starts.push_back(0);
            for (size_t i = 0; i < s.text.size(); ++i)
              if (s.text[i] == '\n') s.starts.push_back(i + 1);
          }
        }
        std::string base = s.path.substr(s.path.find_last_of('/') == std::string::npos ? 0 : s.path.find_last_of('/') + 1);
        std::string c = "\t// " + shown(base.empty() ? "?" : base, kMaxShownName) + ":" + std::to_string(ln);
        std::string_view src = trim(s.line(ln));
        if (!src.empty()) c += ": " + shown(src, kMaxShownSource);
        emit(c + "\n");
      } else {
        emit(l);
        emit("\n");
      }
    }
    if (closing) in_entry = false, keep = true;
  }
  if (!opt.write) out = std::move(o);
  (void)lineno;
  return true;
}

}  // namespace ptoas::dis
