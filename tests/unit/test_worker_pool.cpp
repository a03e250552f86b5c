// The launcher's worker pool (runtime/worker_pool.cpp): each call runs the
// function once on the caller and once on each pool thread it was given,
// those run at the same time (a launch never waits for another's blocks),
// threads are kept from call to call, launches from several threads share
// the pool, an exception on the caller waits for the pool's calls, and a
// forked child gets a pool of its own.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "worker_pool.h"

using ptoas::rt::run_on_workers;

namespace {

// Waits until `n` calls have arrived, or gives up after 10 s (false): calls
// that the pool ran one after the other would never all arrive.
bool all_arrive(std::atomic<int>& arrived, int n) {
  ++arrived;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (arrived.load() < n)
    if (std::chrono::steady_clock::now() > end) return false;
  return true;
}

}  // namespace

TEST_CASE("worker pool: the caller and each given thread run the function once, at the same time", "[launch]") {
  for (unsigned extra : {0u, 1u, 3u}) {
    std::atomic<int> arrived{0}, met{0};
    std::mutex mu;
    std::set<std::thread::id> ids;
    unsigned given = run_on_workers(extra, [&] {
      met += all_arrive(arrived, int(extra) + 1);
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    });
    CHECK(given == extra);
    CHECK(arrived.load() == int(extra) + 1);
    CHECK(met.load() == int(extra) + 1);
    CHECK(ids.size() == extra + 1);
    CHECK(ids.count(std::this_thread::get_id()) == 1);
  }
}

TEST_CASE("worker pool: threads are kept for the next call", "[launch]") {
  // Kernel thread ids (a new thread's std::thread::id may be an old
  // one's): after one call has made sure of two pool threads, 20 calls one
  // after the other with 2 pool threads each run only on threads that were
  // there before them (/proc/self/task); a pool that started threads per
  // call would show new ones.
  std::atomic<int> warm{0};
  run_on_workers(2, [&] { all_arrive(warm, 3); });
  std::set<pid_t> before;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task"))
    before.insert(pid_t(std::stol(e.path().filename().string())));
  std::mutex mu;
  std::set<pid_t> tids;
  const pid_t caller = gettid();
  for (int r = 0; r < 20; ++r) {
    std::atomic<int> arrived{0};
    run_on_workers(2, [&] {
      all_arrive(arrived, 3);
      std::lock_guard<std::mutex> lock(mu);
      if (gettid() != caller) tids.insert(gettid());
    });
  }
  CHECK(tids.size() >= 2);
  for (pid_t t : tids) CHECK(before.count(t) == 1);
}

TEST_CASE("worker pool: launches from several threads share it", "[launch]") {
  std::atomic<long> calls{0};
  std::vector<std::thread> launchers;
  for (int t = 0; t < 4; ++t)
    launchers.emplace_back([&] {
      for (int r = 0; r < 50; ++r) {
        std::atomic<int> arrived{0};
        run_on_workers(2, [&] {
          all_arrive(arrived, 3);
          ++calls;
        });
      }
    });
  for (std::thread& t : launchers) t.join();
  CHECK(calls.load() == 4 * 50 * 3);
}

TEST_CASE("worker pool: an exception on the caller is thrown after the pool's calls return", "[launch]") {
  std::atomic<int> finished{0};
  const std::thread::id caller = std::this_thread::get_id();
  CHECK_THROWS_AS(run_on_workers(2,
                                 [&] {
                                   if (std::this_thread::get_id() == caller) throw std::runtime_error("block failed");
                                   std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                   ++finished;
                                 }),
                  std::runtime_error);
  CHECK(finished.load() == 2);
}

TEST_CASE("worker pool: a forked child starts a pool of its own", "[launch]") {
  std::atomic<int> arrived{0};
  run_on_workers(2, [&] { all_arrive(arrived, 3); });
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    alarm(20);  // a child that waited on its parent's threads would hang
    std::atomic<int> calls{0}, child_arrived{0};
    unsigned given = run_on_workers(2, [&] {
      all_arrive(child_arrived, 3);
      ++calls;
    });
    _exit(given == 2 && calls.load() == 3 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
