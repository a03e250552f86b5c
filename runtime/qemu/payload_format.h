/* The files the qemu runner (qemu_runner.cpp, the host) and the SVE loader
 * (sve_loader.c, the AArch64 guest) exchange. Plain C: both sides include
 * it. Every field is a little-endian uint64_t; byte arrays are padded with
 * zeros to a multiple of 8.
 *
 * Payload:
 *   PQ_MAGIC, PQ_VERSION, n_jobs, n_regions, vl_bytes (the vector length
 *   the host asked qemu for; the loader refuses to run at another; 0: any)
 *   n_regions x bytes
 *   n_jobs x { code_bytes, thunk_offset, n_slots, n_blocks,
 *              code bytes,
 *              n_slots x kind (0: a plain value; r + 1: a pointer into region r),
 *              n_blocks x n_slots x value (a pointer slot: the offset into its region) }
 *   n_regions x the region's bytes
 *
 * Result:
 *   PQ_RESULT_MAGIC, vl_bytes (what prctl(PR_SVE_GET_VL) said), n_jobs, n_regions
 *   n_jobs x struct pq_job_result
 *   n_regions x the region's bytes after every job ran
 */
#ifndef PTOAS_QEMU_PAYLOAD_FORMAT_H
#define PTOAS_QEMU_PAYLOAD_FORMAT_H
#include <stdint.h>

#define PQ_MAGIC 0x31554d4551544f50ull        /* "PTOQEMU1" */
#define PQ_RESULT_MAGIC 0x31534552514f5450ull /* "PTOQRES1" */
#define PQ_VERSION 1u
#define PQ_ZONE_BYTES 256u  /* pattern bytes before every region (and at least this many after) */
#define PQ_RED_BYTE 0xa5u
#define PQ_NO_PC (~(uint64_t)0)

enum pq_status {
  PQ_NOT_RUN = 0,  /* the loader did not get to it (or ran at the wrong vector length) */
  PQ_OK = 1,
  PQ_FAULT = 2,    /* a signal in block `block` */
  PQ_RED_ZONE = 3  /* it wrote into the red zone of region zone_region at zone_offset */
};

struct pq_job_result {
  uint64_t status;
  uint64_t block;       /* the block that faulted (PQ_FAULT) */
  uint64_t signal;      /* SIGSEGV, SIGBUS, SIGILL, SIGFPE */
  uint64_t fault_addr;  /* si_addr */
  uint64_t pc_offset;   /* the faulting pc as an offset into the image, or PQ_NO_PC */
  uint64_t zone_region;
  uint64_t zone_offset; /* int64_t: from the region's first byte (negative: before it) */
};

#endif
