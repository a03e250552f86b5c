/* The C API (ptort.h) from C, against libptort.so: the vadd sample compiled
 * and launched on every target named on the command line, its results
 * checked element by element; the kernel's parameters; the located errors
 * of a bad program, bad arguments and a failing run; bad calls; and every
 * entry point with an exception thrown inside it (PTORT_TEST_THROW), which
 * must come out as PTORT_E_INTERNAL with a message, never as a crash.
 *
 *   capi_test VADD_PTO TARGET...
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptort.h"

static int fails = 0;
#define CHECK(cond, ...)                         \
  do {                                           \
    if (!(cond)) {                               \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);              \
      fputc('\n', stderr);                       \
      ++fails;                                   \
    }                                            \
  } while (0)

enum { N = 1000 };

/* vadd's arguments with x of `x_bytes` and y of dtype `y_dtype`: the launch
 * must fail as PTORT_E_ARGS with `want` in its message. */
static void expect_args_error(const ptort_kernel* k, float* x, size_t x_bytes, float* y, const char* y_dtype,
                              const char* want, const char* what) {
  char* err = NULL;
  ptort_args* a = ptort_args_new();
  ptort_args_buffer(a, "x", "f32", x, x_bytes);
  ptort_args_buffer(a, "y", y_dtype, y, N * sizeof(float));
  ptort_args_output(a, "z");
  ptort_args_scalar(a, "n", "1000");
  ptort_status s = ptort_launch(k, a, 1, &err);
  CHECK(s == PTORT_E_ARGS && err && strstr(err, want), "%s: %d %s", what, s, err ? err : "");
  ptort_free(err);
  ptort_args_free(a);
}

static void run_vadd(const char* path, const char* target) {
  ptort_kernel* k = NULL;
  char* err = NULL;
  ptort_status s = ptort_compile_file(path, target, "opt=2", &k, &err);
  if (s == PTORT_E_UNAVAILABLE) {
    printf("SKIP %s: %s", target, err);
    ptort_free(err);
    return;
  }
  CHECK(s == PTORT_OK && k && !err, "compile for %s: status %d: %s", target, s, err ? err : "");
  ptort_free(err);
  if (!k) return;
  CHECK(strcmp(ptort_kernel_function(k), "vadd") == 0, "function %s", ptort_kernel_function(k));
  CHECK(strstr(ptort_kernel_ir(k), "func.func @vadd") != NULL, "the IR names the function");
  CHECK(ptort_kernel_param_count(k) == 4, "4 parameters, got %d", ptort_kernel_param_count(k));
  ptort_param p;
  CHECK(ptort_kernel_param(k, 0, &p) == PTORT_OK && strcmp(p.name, "x") == 0 && p.kind == PTORT_PARAM_POINTER &&
            strcmp(p.dtype, "f32") == 0 && strcmp(p.npy_descr, "<f4") == 0 && strcmp(p.type, "!pto.ptr<f32>") == 0,
        "parameter 0: %s %d %s %s %s", p.name, p.kind, p.dtype, p.npy_descr, p.type);
  CHECK(ptort_kernel_param(k, 3, &p) == PTORT_OK && strcmp(p.name, "n") == 0 && p.kind == PTORT_PARAM_SCALAR &&
            strcmp(p.dtype, "index") == 0,
        "parameter 3: %s %d %s", p.name, p.kind, p.dtype);
  CHECK(ptort_kernel_param(k, 4, &p) == PTORT_E_USAGE, "parameter 4 does not exist");
  if (strcmp(target, "interp") != 0) {
    const char* text = ptort_kernel_asm(k, &err);
    CHECK(text && strlen(text) > 100, "the %s code as text: %s", target, err ? err : "");
    ptort_free(err);
  }

  float x[N], y[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i * 0.5f;
    y[i] = 1.0f / (float)(i + 1);
  }
  ptort_args* a = ptort_args_new();
  CHECK(ptort_args_buffer(a, "x", "f32", x, sizeof x) == PTORT_OK, "buffer x");
  CHECK(ptort_args_buffer(a, "y", "<f4", y, sizeof y) == PTORT_OK, "buffer y (a numpy descriptor)");
  CHECK(ptort_args_output(a, "z") == PTORT_OK, "output z");
  CHECK(ptort_args_scalar(a, "n", "1000") == PTORT_OK, "scalar n");
  CHECK(ptort_args_scalar(a, "n", "1000") == PTORT_E_USAGE, "n twice");
  const void* out = NULL;
  CHECK(ptort_args_get_output(a, "z", &out, NULL, NULL, NULL, NULL) == PTORT_E_USAGE, "z before it is sized");
  s = ptort_check(k, a, 3, &err);
  CHECK(s == PTORT_OK, "check: %d %s", s, err ? err : "");
  ptort_free(err);
  s = ptort_launch(k, a, 3, &err);
  CHECK(s == PTORT_OK, "launch on %s: %d %s", target, s, err ? err : "");
  ptort_free(err);
  size_t bytes = 0;
  const char* dt = NULL;
  int ndim = 0;
  const int64_t* shape = NULL;
  CHECK(ptort_args_get_output(a, "z", &out, &bytes, &dt, &ndim, &shape) == PTORT_OK, "get z");
  CHECK(bytes == sizeof x && strcmp(dt, "f32") == 0 && ndim == 2 && shape[0] == 1 && shape[1] == N,
        "z: %zu bytes, %s, %d dims", bytes, dt, ndim);
  const float* z = (const float*)out;
  int bad = 0;
  for (int i = 0; i < N && z; ++i)
    if (z[i] != x[i] + y[i]) ++bad;
  CHECK(bad == 0, "%s: %d of %d elements differ from x + y", target, bad, N);
  ptort_args_free(a);
  printf("ok %s%s%s", target, *ptort_kernel_notes(k) ? ": " : "\n", ptort_kernel_notes(k));

  /* Arguments that do not fit: every problem named, nothing runs. */
  expect_args_error(k, x, 40, y, "i32", "parameter %y is !pto.ptr<f32> but the array's dtype is", "a wrong dtype");
  expect_args_error(k, x, 40, y, "f32", "the array for parameter %x is too small", "a short buffer");
  ptort_kernel_free(k);
}

/* A run that fails: a located runtime error from the interpreter. */
static void run_error(void) {
  static const char src[] =
      "module {\n"
      "  func.func @f(%a: !pto.ptr<f32>, %n: index) attributes {pto.entry} {\n"
      "    %c0 = arith.constant 0 : index\n"
      "    %c1 = arith.constant 1 : index\n"
      "    %q = arith.divui %c1, %n : index\n"
      "    return\n"
      "  }\n"
      "}\n";
  ptort_kernel* k = NULL;
  char* err = NULL;
  ptort_status s = ptort_compile("div.pto", src, sizeof src - 1, "interp", "opt=0", &k, &err);
  CHECK(s == PTORT_OK, "compile div.pto: %s", err ? err : "");
  ptort_free(err);
  if (!k) return;
  float buf[4] = {0};
  ptort_args* a = ptort_args_new();
  ptort_args_buffer(a, "a", "f32", buf, sizeof buf);
  ptort_args_scalar(a, "n", "0");
  s = ptort_launch(k, a, 1, &err);
  CHECK(s == PTORT_E_RUN && err && strstr(err, "div.pto:5:"), "a division by zero: %d %s", s, err ? err : "");
  ptort_free(err);
  ptort_args_free(a);
  ptort_kernel_free(k);
}

static void program_errors(void) {
  static const char bad[] = "module {\n  func.func @f() {\n    %x = arith.constant 1 : nosuchtype\n  }\n}\n";
  ptort_kernel* k = (ptort_kernel*)&fails;
  char* err = NULL;
  ptort_status s = ptort_compile("bad.pto", bad, sizeof bad - 1, "interp", NULL, &k, &err);
  CHECK(s == PTORT_E_PROGRAM && k == NULL, "a bad program: status %d", s);
  CHECK(err && strncmp(err, "bad.pto:3:", 10) == 0 && strstr(err, "error:") && strchr(err, '^'),
        "a located error with its caret: %s", err ? err : "(none)");
  ptort_free(err);
  s = ptort_compile_file("/nonexistent/k.pto", "interp", NULL, &k, &err);
  CHECK(s == PTORT_E_USAGE && err && strstr(err, "cannot read '/nonexistent/k.pto'"), "a missing file: %d", s);
  ptort_free(err);
  s = ptort_compile("k.pto", bad, sizeof bad - 1, "nosuchtarget", NULL, &k, &err);
  CHECK(s == PTORT_E_USAGE && err && strstr(err, "unknown target 'nosuchtarget'"), "an unknown target: %s",
        err ? err : "");
  ptort_free(err);
  s = ptort_compile("k.pto", bad, sizeof bad - 1, "interp", "opt=7", &k, &err);
  CHECK(s == PTORT_E_USAGE && err && strstr(err, "opt=7"), "a bad option value: %s", err ? err : "");
  ptort_free(err);
  s = ptort_compile("k.pto", bad, sizeof bad - 1, "interp", "colour=blue", &k, &err);
  CHECK(s == PTORT_E_USAGE && err && strstr(err, "unknown option 'colour'"), "an unknown option: %s", err ? err : "");
  ptort_free(err);
  s = ptort_compile("k.pto", bad, sizeof bad - 1, "avx2", "gpu-arch=sm_90", &k, &err);
  CHECK(s == PTORT_E_USAGE && err && strstr(err, "gpu-arch=sm_90"), "gpu-arch on a CPU target: %s", err ? err : "");
  ptort_free(err);
}

static void bad_calls(void) {
  char* err = NULL;
  ptort_kernel* k = NULL;
  CHECK(ptort_compile("k", NULL, 0, "interp", NULL, &k, &err) == PTORT_E_USAGE && err, "a NULL source");
  ptort_free(err);
  CHECK(ptort_compile("k", "", 0, NULL, NULL, &k, NULL) == PTORT_E_USAGE, "a NULL target, no error string");
  CHECK(ptort_launch(NULL, NULL, 1, &err) == PTORT_E_USAGE, "launch(NULL)");
  ptort_free(err);
  CHECK(ptort_args_scalar(NULL, "n", "1") == PTORT_E_USAGE, "args_scalar(NULL)");
  CHECK(ptort_kernel_param_count(NULL) == -1, "param_count(NULL)");
  CHECK(ptort_kernel_ir(NULL) == NULL, "ir(NULL)");
  ptort_kernel_free(NULL);
  ptort_args_free(NULL);
  ptort_free(NULL);
}

/* PTORT_TEST_THROW=<entry point>: the exception comes out as a status. */
static void thrown(const char* path) {
  static const char* const entries[] = {"ptort_compile_file", "ptort_kernel_asm", "ptort_args_buffer",
                                        "ptort_args_output", "ptort_args_scalar", "ptort_check", "ptort_launch",
                                        "ptort_args_get_output", "ptort_kernel_param"};
  ptort_kernel* k = NULL;
  char* err = NULL;
  if (ptort_compile_file(path, "avx2", NULL, &k, &err) != PTORT_OK) {
    CHECK(0, "compile for the exception test: %s", err ? err : "");
    ptort_free(err);
    return;
  }
  for (size_t i = 0; i < sizeof entries / sizeof *entries; ++i) {
    setenv("PTORT_TEST_THROW", entries[i], 1);
    ptort_status s = PTORT_OK;
    float buf[8];
    ptort_param p;
    ptort_args* a = ptort_args_new();
    ptort_kernel* k2 = NULL;
    err = NULL;
    switch (i) {
      case 0: s = ptort_compile_file(path, "avx2", NULL, &k2, &err); break;
      case 1: s = ptort_kernel_asm(k, &err) ? PTORT_OK : PTORT_E_INTERNAL; break;
      case 2: s = ptort_args_buffer(a, "x", "f32", buf, sizeof buf); break;
      case 3: s = ptort_args_output(a, "z"); break;
      case 4: s = ptort_args_scalar(a, "n", "8"); break;
      case 5: s = ptort_check(k, a, 1, &err); break;
      case 6: s = ptort_launch(k, a, 1, &err); break;
      case 7: s = ptort_args_get_output(a, "z", NULL, NULL, NULL, NULL, NULL); break;
      case 8: s = ptort_kernel_param(k, 0, &p); break;
    }
    CHECK(s == PTORT_E_INTERNAL, "%s with an exception inside: status %d", entries[i], s);
    if (i == 0 || i == 1 || i == 5 || i == 6)
      CHECK(err && strstr(err, "internal error: test exception in"), "%s: the message: %s", entries[i],
            err ? err : "(none)");
    CHECK(k2 == NULL, "%s: no kernel", entries[i]);
    ptort_free(err);
    ptort_args_free(a);
  }
  unsetenv("PTORT_TEST_THROW");
  ptort_kernel_free(k);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: capi_test VADD_PTO TARGET...\n");
    return 2;
  }
  CHECK(strlen(ptort_version()) > 0 && strchr(ptort_version(), '.'), "a version: %s", ptort_version());
  for (int i = 2; i < argc; ++i) run_vadd(argv[1], argv[i]);
  run_error();
  program_errors();
  bad_calls();
  thrown(argv[1]);
  if (fails) {
    fprintf(stderr, "capi_test: %d failed\n", fails);
    return 1;
  }
  printf("capi_test: ok (%d targets)\n", argc - 2);
  return 0;
}
