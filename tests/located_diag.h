// Whether a diagnostic starts as a located one, "FILE:LINE:COL: KIND: "
// (the tests check this by hand: std::regex trips GCC 12's
// maybe-uninitialized warning under ASan, an error with -Werror).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace ptoas_test {

inline bool located_diag(std::string_view text, std::string_view file, std::string_view kind) {
  if (text.substr(0, file.size()) != file || text.substr(file.size(), 1) != ":") return false;
  size_t at = file.size() + 1;
  for (int field = 0; field < 2; ++field) {
    size_t start = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
    if (at == start || at >= text.size() || text[at] != ':') return false;
    ++at;
  }
  std::string rest = " " + std::string(kind) + ": ";
  return text.substr(at, rest.size()) == rest;
}

}  // namespace ptoas_test
