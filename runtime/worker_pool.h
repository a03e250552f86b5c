// The launcher's worker threads (its blocks, and the interpreter's view probe
// before them), kept from one launch to the next.
//
// Why: a thread's stack pages are handed back when it ends (glibc advises
// a finished thread's stack away, even when it keeps the mapping for the
// next thread), so a kernel run on a new thread faults its frame in again
// at every launch: 265 KiB for the bench's bf16 GEMM (its tile arena and
// packing scratch), 65 faults of 10-25 us each on the machines these tools
// run on, while the calling thread, which runs block 0, keeps its stack.
// Threads that wait for the next launch keep theirs. docs/bench.md has the
// numbers.
#pragma once

#include <functional>

namespace ptoas::rt {

// Runs `fn` on up to `extra` pool threads and on the calling thread, and
// returns once every one of those calls has returned; the result is how
// many pool threads ran it (fewer than `extra` only when no more threads
// could be started). An exception from the caller's own call is thrown
// on once the pool's calls have returned; the pool's calls must not throw.
// Launches from several threads at
// once share the pool (it grows to what they ask for together); a forked
// child starts a pool of its own.
unsigned run_on_workers(unsigned extra, const std::function<void()>& fn);

}  // namespace ptoas::rt
