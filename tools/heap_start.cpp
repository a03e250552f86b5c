// ptoas's heap, set up before anything allocates (a .preinit_array entry,
// which runs before every static constructor): the first 512 KiB are
// mapped in one madvise instead of page by page, and the heap is never
// trimmed.
//
// Why: on the virtual machines these tools run on, a page fault costs
// 10-17 us (a fault on a fresh anonymous page, measured), while
// MADV_POPULATE_WRITE maps pages at about 0.7 us each. A compile of a
// bench kernel touches about 140 heap pages one fault at a time, from
// the static constructors to the object file: populating 512 KiB up front
// took `ptoas -target=avx2 bench/kernels/attention.pto` from 270 to 188
// page faults and its median process time from 9.46 to 9.02 ms (200 runs
// each, alternating, pinned to one CPU; docs/bench.md, "Page faults").
// On a machine whose faults are cheap this is about even. Trimming the
// heap back (glibc's default past 128 KiB free at the top) only hands
// pages back that a short process would fault in again, and each trim
// flushes the TLB. Kernels before 5.14 refuse the madvise; nothing else
// changes then.
//
// Not in sanitizer builds (tools/CMakeLists.txt): their allocator is not
// glibc's heap.
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {

constexpr int kHeapStart = 512 << 10;

void heap_start(int, char**, char**) {
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // The first allocation grows the heap by the pad as well.
  mallopt(M_TOP_PAD, kHeapStart);
  void* first = std::malloc(1);
  if (!first) return;
  uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t from = (uintptr_t(first) + page - 1) & ~(page - 1);
  uintptr_t top = uintptr_t(sbrk(0));
  if (top > from) madvise(reinterpret_cast<void*>(from), top - from, MADV_POPULATE_WRITE);
  std::free(first);
  mallopt(M_TOP_PAD, 128 << 10);  // glibc's default for later growth
}

}  // namespace

__attribute__((section(".preinit_array"), used)) void (*const ptoas_heap_start)(int, char**, char**) = heap_start;
