// Process and file plumbing of the emulator runners (runtime/bochs,
// runtime/qemu): finding a program, a private temporary directory, and
// running a program with a wall-clock limit.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ptoas::rt {

// An executable on PATH, or "".
std::string find_program(const char* name);

// The emulator a runner starts: $env when that is set, else `program` on
// PATH. "" when it is missing or not executable, with the reason in *why:
// "<what> is not installed (install <packages>; scripts/install-deps.sh does)".
std::string emulator_program(const char* env, const char* program, const char* what, const char* packages,
                             std::string* why);

bool read_file(const std::string& path, std::vector<uint8_t>& out);
bool write_file(const std::string& path, const void* data, size_t n);

// A private mkdtemp directory under $TMPDIR (or /tmp), removed with every
// file in it unless kept.
class TempDir {
 public:
  TempDir() = default;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  // `prefix`: the directory's name before the random suffix ("ptoas-bochs").
  bool create(const char* prefix, std::string& err);
  const std::string& path() const { return path_; }
  std::string file(const char* name) const { return path_ + "/" + name; }
  void keep() { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

struct Proc {
  bool started = false;
  bool timed_out = false;
  int status = 0;  // waitpid's
  double seconds = 0;
  std::string error;  // why it could not be started or waited for
};

// Runs argv (argv[0] a path) with stdin from /dev/null and stdout and
// stderr to the file `log`, the environment plus `env` ("NAME=VALUE"
// entries replacing those names). After timeout_s it sends
// `timeout_signal`, and SIGKILL 10 s later if the process is still there.
Proc run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log,
                 double timeout_s, int timeout_signal);

// A limit in seconds: `given` when positive, else $env when that is a
// positive number, else `dflt`.
double seconds_setting(double given, const char* env, double dflt);

// True when $name is set to anything but "" and "0".
bool env_flag(const char* name);

// "exit status 3", "signal 9": how a process that ran ended.
std::string describe_status(int status);

}  // namespace ptoas::rt
