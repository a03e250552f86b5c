// The listings' shared pieces (source_lines.h).
#include "source_lines.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ptoas::dis {

std::string shown(std::string_view s, size_t max, bool keep_tabs) {
  std::string o;
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && !(keep_tabs && c == '\t')) || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      o += b;
    } else {
      o += char(c);
    }
  }
  if (s.size() > max) o += "...";
  return o;
}

std::string hex(uint64_t v, int w) {
  char b[32];
  std::snprintf(b, sizeof b, "%0*llx", w, (unsigned long long)v);
  return b;
}

namespace {

auto key(const Line& l) { return std::make_pair(l.section, l.address); }

}  // namespace

void LineRows::add(const Line& l) {
  if (!rows_.empty() && key(rows_.back()) == key(l)) rows_.back() = l;
  else rows_.push_back(l);
  if (rows_.size() > limit_) compact();
}

std::vector<Line> LineRows::finish() {
  compact();
  return std::move(rows_);
}

// Sorted, the last row of each address kept.
void LineRows::compact() {
  std::stable_sort(rows_.begin(), rows_.end(), [](const Line& a, const Line& b) { return key(a) < key(b); });
  size_t n = 0;
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (i + 1 < rows_.size() && key(rows_[i + 1]) == key(rows_[i])) continue;
    rows_[n++] = rows_[i];
  }
  rows_.resize(n);
}

std::string SourceCache::describe(const Line& l) {
  const FileName& f = info_.files[size_t(l.file)];
  std::string_view base = f.name.substr(f.name.find_last_of('/') == std::string_view::npos
                                            ? 0 : f.name.find_last_of('/') + 1);
  std::string o = shown(base, kMaxShownName) + ":" + std::to_string(l.line);
  const Text* text = text_of(l.file);
  if (text && l.line <= text->starts.size()) {
    size_t a = text->starts[l.line - 1];
    const std::string& t = text->text;
    size_t e = l.line < text->starts.size() ? text->starts[l.line] - 1 : t.size();
    if (e > a && t[e - 1] == '\n') --e;  // the last line's
    size_t b = a, z = e;
    while (b < z && (t[b] == ' ' || t[b] == '\t')) ++b;
    while (z > b && (t[z - 1] == ' ' || t[z - 1] == '\t' || t[z - 1] == '\r')) --z;
    o += ": " + shown(std::string_view(t).substr(b, z - b), kMaxShownSource, true);
  }
  return o;
}

const SourceCache::Text* SourceCache::text_of(int64_t file) {
  if (file == last_file_) return last_;
  last_file_ = file;
  last_ = nullptr;
  std::string path = info_.files[size_t(file)].path(kMaxPath);
  if (path.empty() || !read_) return nullptr;
  auto it = cache_.find(path);
  if (it != cache_.end()) return last_ = it->second.get();
  if (cache_.size() >= kMaxSourceFiles) return nullptr;
  std::unique_ptr<Text>& t = cache_[path];
  t = std::make_unique<Text>();
  if (!read_(path, t->text) || t->text.size() > UINT32_MAX || t->text.size() > kMaxSourceBytes - read_bytes_) {
    t->text.clear();
    return nullptr;
  }
  read_bytes_ += t->text.size();
  for (size_t a = 0; a < t->text.size();) {
    t->starts.push_back(uint32_t(a));
    const void* nl = std::memchr(t->text.data() + a, '\n', t->text.size() - a);
    a = nl ? size_t(static_cast<const char*>(nl) - t->text.data()) + 1 : t->text.size();
  }
  return last_ = t.get();
}

}  // namespace ptoas::dis
