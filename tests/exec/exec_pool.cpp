#include "exec_pool.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace execdiff {
namespace {

// A worker's report: for each item it ran, the index and the result, each
// as a 64-bit length or value followed by the bytes.
void put_u64(std::FILE* f, uint64_t v) { std::fwrite(&v, sizeof v, 1, f); }

bool get_u64(std::FILE* f, uint64_t& v) { return std::fread(&v, sizeof v, 1, f) == 1; }

}  // namespace

bool run_forked(size_t n, unsigned jobs, const std::function<std::string(size_t)>& work,
                std::vector<std::string>& out, std::string& err) {
  out.assign(n, std::string());
  if (jobs <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) out[i] = work(i);
    return true;
  }
  void* shm = mmap(nullptr, sizeof(std::atomic<size_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shm == MAP_FAILED) {
    err = std::string("cannot map the workers' counter: ") + std::strerror(errno);
    return false;
  }
  auto* next = new (shm) std::atomic<size_t>(0);
  std::vector<std::FILE*> reports;
  std::vector<pid_t> pids;
  std::fflush(stdout);
  std::fflush(stderr);
  for (unsigned w = 0; w < jobs && err.empty(); ++w) {
    std::FILE* f = std::tmpfile();
    if (!f) {
      err = std::string("cannot create a worker's report file: ") + std::strerror(errno);
      break;
    }
    pid_t pid = fork();
    if (pid < 0) {
      err = std::string("cannot fork a worker: ") + std::strerror(errno);
      std::fclose(f);
      break;
    }
    if (pid == 0) {
      for (size_t i; (i = next->fetch_add(1)) < n;) {
        std::string r = work(i);
        put_u64(f, i);
        put_u64(f, r.size());
        std::fwrite(r.data(), 1, r.size(), f);
        std::fflush(stdout);  // its progress lines as it goes, not at exit
      }
      bool ok = std::fflush(f) == 0 && !std::ferror(f);
      std::fflush(stdout);
      _exit(ok ? 0 : 3);
    }
    reports.push_back(f);
    pids.push_back(pid);
  }
  std::vector<bool> have(n, false);
  for (size_t w = 0; w < pids.size(); ++w) {
    int ws = 0;
    waitpid(pids[w], &ws, 0);
    if (WIFSIGNALED(ws) && err.empty())
      err = "worker " + std::to_string(w) + " died: " + strsignal(WTERMSIG(ws));
    else if (WIFEXITED(ws) && WEXITSTATUS(ws) != 0 && err.empty())
      err = "worker " + std::to_string(w) + " exited with status " + std::to_string(WEXITSTATUS(ws));
    std::FILE* f = reports[w];
    std::rewind(f);
    for (uint64_t i, len; get_u64(f, i) && get_u64(f, len);) {
      if (i >= n) break;
      std::string r(len, '\0');
      if (std::fread(r.data(), 1, len, f) != len) break;
      out[i] = std::move(r);
      have[i] = true;
    }
    std::fclose(f);
  }
  munmap(shm, sizeof(std::atomic<size_t>));
  for (size_t i = 0; i < n && err.empty(); ++i)
    if (!have[i]) err = "item " + std::to_string(i) + " was not reported by any worker";
  return err.empty();
}

}  // namespace execdiff
