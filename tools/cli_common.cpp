// Command-line pieces shared by the program mains (see cli_common.h).
#include "cli_common.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "file_output.h"

namespace ptoas::cli {

std::vector<std::string> rewrite_args(int argc, char** argv, const std::vector<std::string>& long_names) {
  std::vector<std::string> out;
  bool options = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (options && a == "--") options = false;
    if (options && a.size() > 2 && a[0] == '-' && a[1] != '-') {
      std::string name = a.substr(1, a.find('=') == std::string::npos ? std::string::npos
                                                                       : a.find('=') - 1);
      for (const std::string& k : long_names)
        if (name == k) {
          a = "-" + a;
          break;
        }
    }
    if (options && a.size() > 2 && a[0] == '-' && a[1] == '-' && a.find('=') == a.size() - 1) {
      std::string prog = argc > 0 && argv[0] ? argv[0] : "ptoas";
      prog = prog.substr(prog.find_last_of('/') == std::string::npos ? 0 : prog.find_last_of('/') + 1);
      std::fprintf(stderr, "%s: error: empty value for %s\nRun '%s --help' for usage.\n", prog.c_str(),
                   a.substr(0, a.size() - 1).c_str(), prog.c_str());
      std::exit(2);
    }
    out.push_back(a);
  }
  return out;
}

namespace {

// fn(option) for every option of app and of its groups.
template <class Fn>
void for_each_option(const CLI::App& app, Fn&& fn) {
  for (const CLI::Option* o : app.get_options()) fn(*o);
  for (const CLI::App* g : app.get_subcommands([](const CLI::App*) { return true; })) for_each_option(*g, fn);
}

}  // namespace

std::vector<std::string> long_option_names(const CLI::App& app) {
  std::vector<std::string> out;
  for_each_option(app, [&](const CLI::Option& o) {
    for (const std::string& n : o.get_lnames()) out.push_back(n);
  });
  return out;
}

bool needs_other_options(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> lnames = long_option_names(app), snames;
  for_each_option(app, [&](const CLI::Option& o) {
    for (const std::string& n : o.get_snames()) snames.push_back(n);
  });
  auto in = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-') continue;
    std::string name = a.substr(0, a.find('='));
    if (name == "--help" || name == "-help" || name == "-h") return true;
    std::string n = name.substr(name[1] == '-' ? 2 : 1);
    bool known = in(lnames, n) || (name[1] != '-' && in(snames, n.substr(0, 1)));
    if (!known) return true;
  }
  return false;
}

bool read_input(const std::string& path, std::string& text, std::string& err, int* exit_code) {
  ReadStatus st = read_file_bounded(path, text, err);
  if (exit_code) *exit_code = st == ReadStatus::Ok ? 0 : st == ReadStatus::CannotOpen ? 2 : 1;
  return st == ReadStatus::Ok;
}

void add_frontend_flags(CLI::App& app, FrontendFlags& f) {
  app.add_option("--pto-arch", f.arch,
                 "a3 or a5 (case-insensitive): sets the tile memory sizes; overrides the module's "
                 "pto.target_arch; default a3");
  app.add_option("--pto-level", f.level,
                 "level1, level2 (default) or level3 (explicit tile addresses: alloc_tile addr = ...); "
                 "case-insensitive, 1, 2 and 3 are the same");
}

bool apply_frontend_flags(const char* prog, const FrontendFlags& f, FrontendOptions& opts) {
  if (!f.arch.empty()) {
    std::string a = lower_ascii(f.arch);
    if (a != "a3" && a != "a5") {
      std::fprintf(stderr, "%s: error: invalid --pto-arch='%s'; expected 'a3' or 'a5'\n", prog, f.arch.c_str());
      return false;
    }
    opts.arch_from_cli = true;
    opts.arch = a == "a5" ? Arch::A5 : Arch::A3;
  }
  std::string l = lower_ascii(f.level);
  if (l.size() == 1) l = "level" + l;
  if (l != "level1" && l != "level2" && l != "level3") {
    std::fprintf(stderr, "%s: error: invalid --pto-level='%s'; expected level1, level2 or level3\n", prog,
                 f.level.c_str());
    return false;
  }
  opts.level = l == "level1" ? Level::Level1 : l == "level3" ? Level::Level3 : Level::Level2;
  return true;
}

std::string lower_ascii(std::string s) {
  for (char& c : s) c = char(std::tolower((unsigned char)c));
  return s;
}

std::string version_line(const char* tool) {
  return std::string(tool) + " " + PTOAS_VERSION + " (standalone; PTOAS 0.60 compatible)\n";
}

}  // namespace ptoas::cli
