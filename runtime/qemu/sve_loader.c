/* The SVE loader: an AArch64 Linux program, built static with
 * aarch64-linux-gnu-gcc, that the qemu runner (qemu_runner.h) starts under
 * qemu-aarch64. It runs JIT images (cg::JitImage for Target::Sve) the host
 * wrote into a payload file and writes the buffers back to a result file.
 *
 *   sve_loader PAYLOAD RESULT
 *
 * The file formats are in payload_format.h (shared with the host side).
 * Code pages are mapped read-write, filled, then switched to read-execute
 * (never both). Every buffer region lies between red zones (a byte pattern)
 * inside PROT_NONE guard pages: a write into a red zone is found after the
 * job, an access further out faults at once. A fault (SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE) is caught with sigsetjmp, recorded for its job and block,
 * and the next job runs. Before each job the loader writes "job N" to
 * stdout, so that a host which had to kill it (a hang) knows which job hung.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>

#include "payload_format.h"

#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL 51
#endif
#ifndef PR_SVE_VL_LEN_MASK
#define PR_SVE_VL_LEN_MASK 0xffff
#endif

struct region {
  uint64_t bytes;
  uint8_t* map;      /* guard page, red zone, data, red zone, guard page */
  size_t map_bytes;
  uint8_t* data;
  size_t zone_after; /* red-zone bytes after the data */
};

static sigjmp_buf fault_env;
static volatile sig_atomic_t in_kernel;
static volatile uint64_t fault_sig, fault_addr, fault_pc;

static void die(const char* what) {
  fprintf(stderr, "sve_loader: %s: %s\n", what, strerror(errno));
  exit(2);
}

static void on_fault(int sig, siginfo_t* si, void* uc_) {
  ucontext_t* uc = (ucontext_t*)uc_;
  if (!in_kernel) { /* the loader itself: no recovery */
    signal(sig, SIG_DFL);
    return;
  }
  fault_sig = (uint64_t)sig;
  fault_addr = (uint64_t)(uintptr_t)si->si_addr;
  fault_pc = (uint64_t)uc->uc_mcontext.pc;
  in_kernel = 0;
  siglongjmp(fault_env, 1);
}

static void install_handlers(void) {
  /* An alternate stack: a kernel that overflows its own still gets reported. */
  static uint8_t alt[1 << 16];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
  if (sigaltstack(&ss, NULL) != 0) die("sigaltstack");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; ++i)
    if (sigaction(sigs[i], &sa, NULL) != 0) die("sigaction");
}

/* One block; 1 when it faulted. Its own frame: nothing of the caller's
 * lives across the longjmp. */
static __attribute__((noinline)) int run_block(void (*thunk)(const uint64_t*), const uint64_t* slots) {
  if (sigsetjmp(fault_env, 1) != 0) return 1;
  in_kernel = 1;
  thunk(slots);
  in_kernel = 0;
  return 0;
}

static uint8_t* read_all(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f) die(path);
  size_t cap = 1 << 20, len = 0;
  uint8_t* buf = malloc(cap);
  if (!buf) die("malloc");
  for (;;) {
    if (len == cap) {
      cap *= 2;
      buf = realloc(buf, cap);
      if (!buf) die("realloc");
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  fclose(f);
  *n = len;
  return buf;
}

/* A cursor over the payload; any read past its end is a host bug. */
struct cursor {
  const uint8_t* p;
  size_t n, at;
};

static uint64_t next64(struct cursor* c) {
  if (c->at + 8 > c->n) {
    fprintf(stderr, "sve_loader: truncated payload\n");
    exit(2);
  }
  uint64_t v;
  memcpy(&v, c->p + c->at, 8);
  c->at += 8;
  return v;
}

static const uint8_t* take(struct cursor* c, uint64_t bytes) {
  uint64_t padded = (bytes + 7) & ~(uint64_t)7;
  if (padded < bytes || c->at + padded > c->n) {
    fprintf(stderr, "sve_loader: truncated payload\n");
    exit(2);
  }
  const uint8_t* p = c->p + c->at;
  c->at += padded;
  return p;
}

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static void map_region(struct region* r) {
  size_t pg = page_size();
  size_t mid = (PQ_ZONE_BYTES + r->bytes + PQ_ZONE_BYTES + pg - 1) / pg * pg;
  r->map_bytes = pg + mid + pg;
  r->map = mmap(NULL, r->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (r->map == MAP_FAILED) die("mmap (buffer)");
  if (mprotect(r->map + pg, mid, PROT_READ | PROT_WRITE) != 0) die("mprotect (buffer)");
  r->data = r->map + pg + PQ_ZONE_BYTES;
  r->zone_after = mid - PQ_ZONE_BYTES - r->bytes;
  memset(r->map + pg, PQ_RED_BYTE, mid);
}

/* The first damaged red-zone byte of r, as an offset from r->data
 * (negative: before it); 0 with *hit = 0 when intact. The zone is
 * restored so that the next job is not blamed. */
static int64_t check_zones(struct region* r, int* hit) {
  uint8_t* before = r->data - PQ_ZONE_BYTES;
  uint8_t* after = r->data + r->bytes;
  *hit = 0;
  int64_t where = 0;
  for (size_t i = 0; i < PQ_ZONE_BYTES; ++i)
    if (before[i] != PQ_RED_BYTE) {
      if (!*hit) where = (int64_t)i - PQ_ZONE_BYTES;
      *hit = 1;
      before[i] = PQ_RED_BYTE;
    }
  for (size_t i = 0; i < r->zone_after; ++i)
    if (after[i] != PQ_RED_BYTE) {
      if (!*hit) where = (int64_t)(r->bytes + i);
      *hit = 1;
      after[i] = PQ_RED_BYTE;
    }
  return where;
}

static void put64(FILE* f, uint64_t v) {
  if (fwrite(&v, 8, 1, f) != 1) die("write (result)");
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: sve_loader PAYLOAD RESULT\n");
    return 2;
  }
  size_t n;
  uint8_t* payload = read_all(argv[1], &n);
  struct cursor c = {payload, n, 0};
  if (next64(&c) != PQ_MAGIC || next64(&c) != PQ_VERSION) {
    fprintf(stderr, "sve_loader: %s is not a payload of this version\n", argv[1]);
    return 2;
  }
  uint64_t n_jobs = next64(&c), n_regions = next64(&c), want_vl = next64(&c);

  long vl = prctl(PR_SVE_GET_VL);
  uint64_t vl_bytes = vl < 0 ? 0 : (uint64_t)(vl & PR_SVE_VL_LEN_MASK);

  struct region* regions = calloc(n_regions ? n_regions : 1, sizeof *regions);
  struct pq_job_result* results = calloc(n_jobs ? n_jobs : 1, sizeof *results);
  if (!regions || !results) die("calloc");
  for (uint64_t r = 0; r < n_regions; ++r) regions[r].bytes = next64(&c);

  /* Jobs are read once, in order; their code, kinds and slots stay in the payload. */
  struct job {
    uint64_t code_bytes, thunk_offset, n_slots, n_blocks;
    const uint8_t* code;
    const uint64_t* kinds;
    const uint64_t* slots;
  }* jobs = calloc(n_jobs ? n_jobs : 1, sizeof *jobs);
  if (!jobs) die("calloc");
  for (uint64_t j = 0; j < n_jobs; ++j) {
    struct job* jb = &jobs[j];
    jb->code_bytes = next64(&c);
    jb->thunk_offset = next64(&c);
    jb->n_slots = next64(&c);
    jb->n_blocks = next64(&c);
    jb->code = take(&c, jb->code_bytes);
    jb->kinds = (const uint64_t*)take(&c, jb->n_slots * 8);
    jb->slots = (const uint64_t*)take(&c, jb->n_blocks * jb->n_slots * 8);
  }
  for (uint64_t r = 0; r < n_regions; ++r) {
    map_region(&regions[r]);
    memcpy(regions[r].data, take(&c, regions[r].bytes), regions[r].bytes);
  }

  install_handlers();
  int vl_ok = want_vl == 0 || want_vl == vl_bytes;
  size_t pg = page_size();
  for (uint64_t j = 0; j < n_jobs && vl_ok; ++j) {
    struct job* jb = &jobs[j];
    struct pq_job_result* res = &results[j];
    printf("job %llu\n", (unsigned long long)j);
    fflush(stdout);
    size_t code_map = (jb->code_bytes + pg - 1) / pg * pg;
    uint8_t* code = mmap(NULL, code_map ? code_map : pg, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) die("mmap (code)");
    memcpy(code, jb->code, jb->code_bytes);
    if (mprotect(code, code_map ? code_map : pg, PROT_READ | PROT_EXEC) != 0) die("mprotect (code)");
    __builtin___clear_cache((char*)code, (char*)code + jb->code_bytes);
    void (*thunk)(const uint64_t*) = (void (*)(const uint64_t*))(void*)(code + jb->thunk_offset);
    uint64_t* slots = malloc((jb->n_slots ? jb->n_slots : 1) * 8);
    if (!slots) die("malloc");
    res->status = PQ_OK;
    for (uint64_t b = 0; b < jb->n_blocks; ++b) {
      for (uint64_t s = 0; s < jb->n_slots; ++s) {
        uint64_t v = jb->slots[b * jb->n_slots + s], k = jb->kinds[s];
        slots[s] = k == 0 ? v : (uint64_t)(uintptr_t)(regions[k - 1].data + v);
      }
      res->block = b;
      if (run_block(thunk, slots)) {
        res->status = PQ_FAULT;
        res->signal = fault_sig;
        res->fault_addr = fault_addr;
        uint64_t base = (uint64_t)(uintptr_t)code;
        res->pc_offset = fault_pc >= base && fault_pc < base + jb->code_bytes ? fault_pc - base : PQ_NO_PC;
        break;
      }
    }
    /* Red zones: a write outside the job's buffers (not covered by a fault). */
    for (uint64_t s = 0; s < jb->n_slots; ++s) {
      uint64_t k = jb->kinds[s];
      if (k == 0) continue;
      int hit;
      int64_t where = check_zones(&regions[k - 1], &hit);
      if (hit && res->status == PQ_OK) {
        res->status = PQ_RED_ZONE;
        res->zone_region = k - 1;
        res->zone_offset = (uint64_t)where;
      }
    }
    free(slots);
    munmap(code, code_map ? code_map : pg);
  }
  if (!vl_ok)
    for (uint64_t j = 0; j < n_jobs; ++j) results[j].status = PQ_NOT_RUN;

  FILE* out = fopen(argv[2], "wb");
  if (!out) die(argv[2]);
  put64(out, PQ_RESULT_MAGIC);
  put64(out, vl_bytes);
  put64(out, n_jobs);
  put64(out, n_regions);
  if (n_jobs && fwrite(results, sizeof *results, n_jobs, out) != n_jobs) die("write (result)");
  for (uint64_t r = 0; r < n_regions; ++r)
    if (regions[r].bytes && fwrite(regions[r].data, 1, regions[r].bytes, out) != regions[r].bytes)
      die("write (result)");
  if (fclose(out) != 0) die("close (result)");
  return 0;
}
