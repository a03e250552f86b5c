// The launcher's worker threads (worker_pool.h).
#include "worker_pool.h"

#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace ptoas::rt {

namespace {

// One launch's share of the pool: the function, and how many of its pool
// calls have not returned yet.
struct Job {
  const std::function<void()>* fn;
  unsigned left;
  std::condition_variable done;
};

// Every queued call has a thread of its own to run it: threads >= running
// + queue.size(), kept by starting threads as calls are queued, so that no
// launch waits for another's blocks.
struct Pool {
  std::mutex mu;
  std::condition_variable ready;
  std::deque<Job*> queue;  // one entry per pool call still to start
  size_t threads = 0;      // started (never end: detached, waiting in `ready`)
  size_t running = 0;      // in a call

  void loop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      ready.wait(lock, [&] { return !queue.empty(); });
      Job* j = queue.front();
      queue.pop_front();
      ++running;
      lock.unlock();
      (*j->fn)();
      lock.lock();
      --running;
      if (--j->left == 0) j->done.notify_all();
    }
  }
};

// The pool of this process. A forked child has none of its parent's
// threads (and maybe a locked mutex): it makes its own, and the parent's
// copy is left as it is.
Pool& pool() {
  static Pool* p = nullptr;
  static pid_t owner = 0;
  static std::mutex create;
  std::lock_guard<std::mutex> lock(create);
  if (!p || owner != getpid()) {
    p = new Pool;
    owner = getpid();
  }
  return *p;
}

}  // namespace

unsigned run_on_workers(unsigned extra, const std::function<void()>& fn) {
  Pool& p = pool();
  Job job{&fn, 0, {}};
  std::unique_lock<std::mutex> lock(p.mu);
  while (job.left < extra) {
    if (p.threads < p.running + p.queue.size() + 1) {
      try {
        std::thread(&Pool::loop, &p).detach();
      } catch (const std::system_error&) {
        break;  // fewer threads: the caller runs the rest of its blocks
      }
      ++p.threads;
    }
    p.queue.push_back(&job);
    ++job.left;
  }
  const unsigned given = job.left;
  if (given) p.ready.notify_all();
  lock.unlock();
  // The queued calls point at this frame: wait for them whatever happens.
  std::exception_ptr thrown;
  try {
    fn();
  } catch (...) {
    thrown = std::current_exception();
  }
  lock.lock();
  job.done.wait(lock, [&] { return job.left == 0; });
  if (thrown) std::rethrow_exception(thrown);
  return given;
}

}  // namespace ptoas::rt
