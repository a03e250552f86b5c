// Command-line pieces shared by the program mains (see cli_common.h).
#include "cli_common.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace ptoas::cli {

std::vector<std::string> rewrite_args(int argc, char** argv,
                                      std::initializer_list<const char*> long_names) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] != '-') {
      std::string name = a.substr(1, a.find('=') == std::string::npos ? std::string::npos
                                                                       : a.find('=') - 1);
      for (const char* k : long_names)
        if (name == k) {
          a = "-" + a;
          break;
        }
    }
    out.push_back(a);
  }
  return out;
}

bool read_input(const std::string& path, std::string& text, std::string& err) {
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    err = std::strerror(EISDIR);
    return false;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    err = std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) {
    err = "read error";
    return false;
  }
  text = ss.str();
  return true;
}

std::string lower_ascii(std::string s) {
  for (char& c : s) c = char(std::tolower((unsigned char)c));
  return s;
}

}  // namespace ptoas::cli
