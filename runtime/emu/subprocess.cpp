// Process and file plumbing of the emulator runners (subprocess.h).
#include "subprocess.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

extern char** environ;

namespace ptoas::rt {

std::string find_program(const char* name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find(':', i);
    if (j == std::string::npos) j = p.size();
    std::string dir = p.substr(i, j - i);
    if (dir.empty()) dir = ".";
    std::string f = dir + "/" + name;
    if (::access(f.c_str(), X_OK) == 0) return f;
    i = j + 1;
  }
  return "";
}

std::string emulator_program(const char* env, const char* program, const char* what, const char* packages,
                             std::string* why) {
  const char* e = std::getenv(env);
  std::string path = e && *e ? e : find_program(program);
  if (!path.empty() && ::access(path.c_str(), X_OK) == 0) return path;
  if (why)
    *why = path.empty() ? std::string(what) + " is not installed (install " + packages +
                              "; scripts/install-deps.sh does)"
                        : "$" + std::string(env) + " (" + path + ") is not an executable";
  return "";
}

bool read_file(const std::string& path, std::vector<uint8_t>& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

bool write_file(const std::string& path, const void* data, size_t n) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return false;
  f.write(static_cast<const char*>(data), std::streamsize(n));
  return bool(f);
}

bool TempDir::create(const char* prefix, std::string& err) {
  const char* t = std::getenv("TMPDIR");
  std::string base = t && *t ? t : "/tmp";
  // Bochs' configuration and debugger parsers take no quoting for unusual
  // characters: fall back to /tmp for such a TMPDIR.
  if (base.find_first_of(" \t\"',#=") != std::string::npos) base = "/tmp";
  std::string tmpl = base + "/" + prefix + ".XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) {
    err = "cannot create a temporary directory in " + base + ": " + std::strerror(errno);
    return false;
  }
  path_ = buf.data();
  return true;
}

TempDir::~TempDir() {
  if (path_.empty() || keep_) return;
  // Only plain files are put there (no subdirectories).
  if (DIR* d = ::opendir(path_.c_str())) {
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
    ::closedir(d);
    for (const std::string& n : names) ::unlink((path_ + "/" + n).c_str());
  }
  ::rmdir(path_.c_str());
}

Proc run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log,
                 double timeout_s, int timeout_signal) {
  Proc r;
  std::vector<char*> av;
  for (const std::string& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  std::vector<std::string> envs;
  for (char** e = environ; e && *e; ++e) {
    bool replaced = std::any_of(env.begin(), env.end(), [&](const std::string& x) {
      size_t eq = x.find('=');
      return std::strncmp(*e, x.c_str(), eq + 1) == 0;
    });
    if (!replaced) envs.emplace_back(*e);
  }
  envs.insert(envs.end(), env.begin(), env.end());
  std::vector<char*> ev;
  for (const std::string& e : envs) ev.push_back(const_cast<char*>(e.c_str()));
  ev.push_back(nullptr);
  int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || in < 0) {
    r.error = "cannot open " + log + ": " + std::strerror(errno);
    if (out >= 0) ::close(out);
    if (in >= 0) ::close(in);
    return r;
  }
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execve(av[0], av.data(), ev.data());
    _exit(127);
  }
  ::close(out);
  ::close(in);
  std::string name = argv.empty() ? "" : argv[0].substr(argv[0].rfind('/') + 1);
  if (pid < 0) {
    r.error = "cannot start " + name + ": " + std::strerror(errno);
    return r;
  }
  r.started = true;
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  int sent = 0;  // 1: timeout_signal, 2: SIGKILL
  double nap = 0.0005;
  for (;;) {
    int st = 0;
    pid_t w = ::waitpid(pid, &st, WNOHANG);
    if (w == pid) {
      r.status = st;
      break;
    }
    if (w < 0 && errno != EINTR) {
      r.error = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
    double t = elapsed();
    if (sent == 0 && t > timeout_s) {
      r.timed_out = true;
      ::kill(pid, timeout_signal);
      sent = 1;
    } else if (sent == 1 && t > timeout_s + 10) {
      ::kill(pid, SIGKILL);
      sent = 2;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(nap));
    nap = std::min(nap * 2, 0.01);
  }
  r.seconds = elapsed();
  return r;
}

double seconds_setting(double given, const char* env, double dflt) {
  if (given > 0) return given;
  const char* e = std::getenv(env);
  double v = e && *e ? std::strtod(e, nullptr) : 0;
  return v > 0 ? v : dflt;
}

bool env_flag(const char* name) {
  const char* e = std::getenv(name);
  return e && *e && std::strcmp(e, "0") != 0;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace ptoas::rt
