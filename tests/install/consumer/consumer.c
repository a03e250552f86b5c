/* Runs vadd through an installed libptort.so and checks every element. */
#include <stdio.h>

#include <ptort.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: consumer VADD_PTO TARGET\n");
    return 2;
  }
  ptort_kernel* k;
  char* err = NULL;
  if (ptort_compile_file(argv[1], argv[2], NULL, &k, &err) != PTORT_OK) {
    fprintf(stderr, "%s", err);
    ptort_free(err);
    return 1;
  }
  enum { N = 777 };
  float x[N], y[N], z[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = (float)(3 * i) + 0.25f;
    z[i] = -1.0f;
  }
  ptort_args* a = ptort_args_new();
  ptort_args_buffer(a, "x", "f32", x, sizeof x);
  ptort_args_buffer(a, "y", "f32", y, sizeof y);
  ptort_args_buffer(a, "z", "f32", z, sizeof z);
  ptort_args_scalar(a, "n", "777");
  int rc = 0;
  if (ptort_launch(k, a, 2, &err) != PTORT_OK) {
    fprintf(stderr, "%s", err);
    ptort_free(err);
    rc = 1;
  }
  for (int i = 0; i < N && !rc; ++i)
    if (z[i] != x[i] + y[i]) {
      fprintf(stderr, "z[%d] = %g, expected %g\n", i, z[i], x[i] + y[i]);
      rc = 1;
    }
  ptort_args_free(a);
  ptort_kernel_free(k);
  if (!rc) printf("consumer: vadd on %s (ptort %s): ok\n", argv[2], ptort_version());
  return rc;
}
