// ptocheck: runs the Bison reference grammar (grammar/pto.y) alone.
//
//   ptocheck [-q] FILE...
//
// For each file: `FILE: ok`, or `FILE:LINE:COL: syntax error, ...` (or
// `FILE:LINE:COL: error: ...` for a lexical error, as ptoas reports it).
// -q prints nothing for accepted files. Exit status: 0 iff every file was
// accepted, 1 if some file was rejected, 2 on a usage error or when a file
// cannot be read.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bison_adapter.h"
#include "diag.h"
#include "token_stream.h"

namespace {

void usage(FILE* f) {
  std::fputs(
      "usage: ptocheck [-q] FILE...\n"
      "Checks each FILE against the Bison reference grammar of PTO-AS\n"
      "(grammar/pto.y, statement level).\n"
      "  -q  quiet: report only rejected files\n"
      "Exit status: 0 all accepted, 1 some rejected, 2 usage error or unreadable file.\n",
      f);
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  out = std::move(ss).str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool quiet = false;
  bool opts_done = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!opts_done && a[0] == '-' && a[1] != '\0') {
      if (!std::strcmp(a, "--")) { opts_done = true; continue; }
      if (!std::strcmp(a, "-q") || !std::strcmp(a, "--quiet")) { quiet = true; continue; }
      if (!std::strcmp(a, "-h") || !std::strcmp(a, "--help")) { usage(stdout); return 0; }
      std::fprintf(stderr, "ptocheck: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
    files.push_back(a);
  }
  if (files.empty()) {
    usage(stderr);
    return 2;
  }

  int status = 0;
  for (const std::string& path : files) {
    std::string text;
    if (!read_file(path, text)) {
      std::fprintf(stderr, "ptocheck: cannot read '%s': %s\n", path.c_str(), std::strerror(errno));
      status = 2;
      continue;
    }
    ptoas::SourceFile src(path, std::move(text));
    ptoas::Diag diag(&src);
    std::vector<ptoas::Token> toks;
    if (!ptoas::tokenize(src, toks, diag)) {
      // Lexical errors: print the first diagnostic line (file:line:col: error: ...).
      const std::string& d = diag.text();
      std::string first = d.substr(0, d.find('\n'));
      std::printf("%s\n", first.empty() ? (path + ": error: cannot tokenize").c_str() : first.c_str());
      if (status == 0) status = 1;
      continue;
    }
    ptoas::BisonResult r = ptoas::bison_parse(toks);
    if (r.accepted) {
      if (!quiet) std::printf("%s: ok\n", path.c_str());
      continue;
    }
    ptoas::LineCol lc = src.line_col(toks.empty() ? 0 : toks[r.error_token].off);
    std::printf("%s:%u:%u: %s\n", path.c_str(), lc.line, lc.col, r.message.c_str());
    if (status == 0) status = 1;
  }
  std::fflush(stdout);
  return status;
}
