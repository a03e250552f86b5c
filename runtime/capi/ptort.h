/* ptort.h: the C API of the PTO runtime (libptort.so).
 *
 * Compile a .pto kernel for a target, ask it for its parameters, and launch
 * it on this machine with your buffers and scalars: natively (avx2, avx512,
 * sve on a CPU that has them), under Bochs or qemu-aarch64 where it lacks
 * them, on the project's CPU model of PTO-ISA (cce), on an NVIDIA GPU or the
 * project's PTX interpreter (ptx), on the project's AMDGPU interpreter
 * (amdgpu), or on the reference interpreter (interp). The same engine as
 * ptorun: the same checks of every buffer against the views the kernel
 * builds on it, before any kernel code runs.
 *
 *   ptort_kernel* k;
 *   char* err = NULL;
 *   if (ptort_compile_file("vadd.pto", "avx2", NULL, &k, &err) != PTORT_OK) {
 *     fprintf(stderr, "%s", err);   // "vadd.pto:3:7: error: ...", the line, a caret
 *     ptort_free(err);
 *   }
 *   ptort_args* a = ptort_args_new();
 *   ptort_args_buffer(a, "a", "f32", x, sizeof x);
 *   ptort_args_buffer(a, "b", "f32", y, sizeof y);
 *   ptort_args_output(a, "c");                    // allocated, shaped by the kernel's view
 *   ptort_args_scalar(a, "n", "1024");
 *   if (ptort_launch(k, a, 4, &err) == PTORT_OK) {  // 4 blocks
 *     const void* c; size_t bytes;
 *     ptort_args_get_output(a, "c", &c, &bytes, NULL, NULL, NULL);
 *   }
 *   ptort_args_free(a);
 *   ptort_kernel_free(k);
 *
 * Every function returns a status; none lets a C++ exception out, and none
 * aborts on a bad call (a null pointer, an unknown name: PTORT_E_USAGE).
 * Messages come back through `char** error` (may be NULL) as one string,
 * one message per line, allocated for the caller to release with
 * ptort_free; it is set to NULL on success. Strings a kernel or an args
 * object returns are theirs and live as long as they do.
 *
 * A kernel may be launched any number of times, one launch at a time; two
 * kernels may run at once on different threads. The time limit (the
 * "timeout" option) stops the interpreters and the emulators; native code
 * cannot be stopped inside a process and is not limited.
 */
#ifndef PTORT_H
#define PTORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PTORT_EXPORT __attribute__((visibility("default")))
#else
#define PTORT_EXPORT
#endif

typedef enum ptort_status {
  PTORT_OK = 0,
  PTORT_E_PROGRAM = 1,     /* the program, or the target's refusal of it: located messages */
  PTORT_E_ARGS = 2,        /* the arguments do not fit the kernel (names, kinds, dtypes, sizes) */
  PTORT_E_RUN = 3,         /* the kernel failed while running: a located runtime error */
  PTORT_E_UNAVAILABLE = 4, /* the target cannot run here (a tool it needs is missing) */
  PTORT_E_USAGE = 5,       /* a bad call: a null pointer, an unknown option, target or name */
  PTORT_E_INTERNAL = 6     /* an internal error, or memory ran out */
} ptort_status;

typedef enum ptort_param_kind {
  PTORT_PARAM_POINTER = 0, /* !pto.ptr<T>: a buffer or an output */
  PTORT_PARAM_SCALAR = 1,  /* an integer, float or i1 value */
  PTORT_PARAM_OTHER = 2    /* cannot be passed from the host */
} ptort_param_kind;

typedef struct ptort_param {
  const char* name;      /* without '%' */
  ptort_param_kind kind;
  const char* dtype;     /* the element (pointer) or value (scalar) type: "f32", "bf16", "i32", ... */
  const char* npy_descr; /* numpy's descriptor of dtype ("<f4"; bf16 "<u2"), "" when numpy has none */
  const char* type;      /* the type as the kernel spells it: "!pto.ptr<f32>" */
} ptort_param;

typedef struct ptort_kernel ptort_kernel;
typedef struct ptort_args ptort_args;

/* The version of ptoas this library belongs to ("0.1.0"). */
PTORT_EXPORT const char* ptort_version(void);
/* Releases a string the library allocated (an error). NULL is fine. */
PTORT_EXPORT void ptort_free(void* p);

/* Compiles `size` bytes of .pto text (`filename` names it in messages) for
 * `target`: "interp", "host", or a target of `ptoas --print-targets` that
 * ptorun runs. `options` is NULL or space-separated key=value words:
 *   opt=0|1|2        optimization level (default 2)
 *   function=NAME    the function to run (default: the pto.entry one, else the only one)
 *   arch=a3|a5       the tile memory sizes, as ptoas --pto-arch (default: the module's pto.target_arch, else a3)
 *   gpu-arch=ARCH    ptx: sm_80..sm_120; amdgpu: gfx942 (default), gfx90a, gfx1100
 *   sve-vl=BITS      sve under qemu: the vector length (128..2048, a multiple of 128)
 *   timeout=SECONDS  the interpreters' and emulators' limit per launch (default 600; 0: none)
 *   threads=N        worker threads per launch (default: the hardware's, at most the blocks)
 * On success *out is the kernel (release it with ptort_kernel_free). */
PTORT_EXPORT ptort_status ptort_compile(const char* filename, const char* source, size_t size, const char* target,
                                        const char* options, ptort_kernel** out, char** error);
/* The same, reading the file at `path`. */
PTORT_EXPORT ptort_status ptort_compile_file(const char* path, const char* target, const char* options,
                                             ptort_kernel** out, char** error);
PTORT_EXPORT void ptort_kernel_free(ptort_kernel* k);

/* The target it runs on ("avx2"; "host" resolved), and the function's name. */
PTORT_EXPORT const char* ptort_kernel_target(const ptort_kernel* k);
PTORT_EXPORT const char* ptort_kernel_function(const ptort_kernel* k);
/* Where it actually runs when that is not the target itself ("this CPU
 * cannot run avx512 code; running under Bochs"), one line each; "" if not. */
PTORT_EXPORT const char* ptort_kernel_notes(const ptort_kernel* k);
/* The optimized IR, as `ptoas --emit=ir` prints it. */
PTORT_EXPORT const char* ptort_kernel_ir(const ptort_kernel* k);
/* The target's code as text: the assembly listing (x86, sve, amdgpu), the
 * PTX, or the CCE C++. Computed on first use; NULL with *error on failure
 * (interp has no code). */
PTORT_EXPORT const char* ptort_kernel_asm(ptort_kernel* k, char** error);

PTORT_EXPORT int ptort_kernel_param_count(const ptort_kernel* k);
PTORT_EXPORT ptort_status ptort_kernel_param(const ptort_kernel* k, int index, ptort_param* out);

/* The arguments of a launch, by parameter name. */
PTORT_EXPORT ptort_args* ptort_args_new(void);
PTORT_EXPORT void ptort_args_free(ptort_args* a);
/* A scalar as text ("1024", "0x10", "1.5", "true"), parsed by the parameter's type at launch. */
PTORT_EXPORT ptort_status ptort_args_scalar(ptort_args* a, const char* name, const char* value);
/* Your memory for a pointer parameter: `bytes` bytes of `dtype` elements
 * (a dtype name, "f32", or a numpy descriptor, "<f4"), read and written in
 * place; it must stay valid through the launch. */
PTORT_EXPORT ptort_status ptort_args_buffer(ptort_args* a, const char* name, const char* dtype, void* data,
                                            size_t bytes);
/* An output the launch allocates, zero-filled, shaped like the view the
 * kernel builds on the parameter. */
PTORT_EXPORT ptort_status ptort_args_output(ptort_args* a, const char* name);
/* After ptort_check or ptort_launch: an output's memory (owned by `a`), its
 * size, its dtype name, and its shape (ndim entries, owned by `a`). Any of
 * the out pointers may be NULL. */
PTORT_EXPORT ptort_status ptort_args_get_output(const ptort_args* a, const char* name, const void** data,
                                                size_t* bytes, const char** dtype, int* ndim, const int64_t** shape);

/* Checks the arguments against the kernel for `blocks` blocks (names,
 * kinds, dtypes, every view against its buffer) and sizes the outputs,
 * without running any block. */
PTORT_EXPORT ptort_status ptort_check(const ptort_kernel* k, ptort_args* a, int64_t blocks, char** error);
/* Checks as ptort_check does, then runs blocks 0..blocks-1. */
PTORT_EXPORT ptort_status ptort_launch(const ptort_kernel* k, ptort_args* a, int64_t blocks, char** error);

#ifdef __cplusplus
}
#endif
#endif /* PTORT_H */
