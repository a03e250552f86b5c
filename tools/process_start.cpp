// ptoas's start-up, before anything allocates or runs (a .preinit_array
// entry, which runs before every static constructor): the program's
// pages (text, read-only data, data and bss) are mapped in one call per
// segment, the first 512 KiB of heap in one more, and the heap is never
// trimmed.
//
// Why: on the virtual machines these tools run on, a page fault costs
// 10-25 us (a fresh anonymous page, or a 64 KiB window of a mapped file),
// while MADV_POPULATE_READ / _WRITE map pages at 0.3-0.7 us each.
//
// The text and read-only data (3.5 and 0.9 MiB since the LLVM backends
// are a plugin) were faulted in 64 KiB windows as the code reached them:
// about 45 faults for a bench kernel. Populating both segments took
// `ptoas -target=avx2 bench/kernels/attention.pto` from 147 to 103 page
// faults and its process time from 5.92 to 5.58 ms (minimum of 100
// alternating runs; medians 6.78 -> 6.63 ms; docs/bench.md). With the
// 9 MiB of text LLVM's MC layers brought, the populate cost what it saved.
//
// The heap: a compile of a bench kernel touches about 140 heap pages one
// fault at a time, from the static constructors to the object file:
// populating 512 KiB up front took the same compile from 270 to 188 page
// faults and its median process time from 9.46 to 9.02 ms (200 runs
// each, alternating, pinned to one CPU; docs/bench.md, "Page faults").
// Trimming the heap back (glibc's default past 128 KiB free at the top)
// only hands pages back that a short process would fault in again, and
// each trim flushes the TLB.
//
// On a machine whose faults are cheap this is about even. Kernels before
// 5.14 refuse the madvise calls; nothing else changes then. Not in
// sanitizer builds (tools/CMakeLists.txt): their allocator is not
// glibc's heap.
#include <link.h>
#include <malloc.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {

constexpr int kHeapStart = 512 << 10;

// The program's loadable segments (the load bias is 0 for ptoas, linked
// -no-pie, and AT_PHDR less PT_PHDR's address for a PIE): those it does
// not write (text, read-only data) read, and its data and bss written,
// past the part the loader made read-only after relocating it (RELRO,
// where a write would fail).
void populate_segments(uintptr_t page) {
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(getauxval(AT_PHDR));
  size_t n = getauxval(AT_PHNUM);
  uintptr_t bias = 0, relro_end = 0;
  for (size_t i = 0; ph && i < n; ++i)
    if (ph[i].p_type == PT_PHDR) bias = uintptr_t(ph) - ph[i].p_vaddr;
  for (size_t i = 0; ph && i < n; ++i)
    if (ph[i].p_type == PT_GNU_RELRO) relro_end = (bias + ph[i].p_vaddr + ph[i].p_memsz + page - 1) & ~(page - 1);
  for (size_t i = 0; ph && i < n; ++i) {
    if (ph[i].p_type != PT_LOAD) continue;
    uintptr_t from = (bias + ph[i].p_vaddr) & ~(page - 1);
    uintptr_t to = (bias + ph[i].p_vaddr + ph[i].p_memsz + page - 1) & ~(page - 1);
    bool written = ph[i].p_flags & PF_W;
    if (written && from < relro_end) from = relro_end;
    if (from < to) madvise(reinterpret_cast<void*>(from), to - from, written ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
  }
}

void process_start(int, char**, char**) {
  uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  populate_segments(page);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // The first allocation grows the heap by the pad as well.
  mallopt(M_TOP_PAD, kHeapStart);
  void* first = std::malloc(1);
  if (!first) return;
  uintptr_t from = (uintptr_t(first) + page - 1) & ~(page - 1);
  uintptr_t top = uintptr_t(sbrk(0));
  if (top > from) madvise(reinterpret_cast<void*>(from), top - from, MADV_POPULATE_WRITE);
  std::free(first);
  mallopt(M_TOP_PAD, 128 << 10);  // glibc's default for later growth
}

}  // namespace

__attribute__((section(".preinit_array"), used)) void (*const ptoas_process_start)(int, char**, char**) = process_start;
