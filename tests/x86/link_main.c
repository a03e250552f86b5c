/* Link test: calls a kernel assembled by `ptoas -target=avx2` through the
 * header `ptoas --emit=header` wrote, and checks every element plus a
 * sentinel past the end. */
#include <stdio.h>
#include <stdlib.h>

#include "axpy_relu.h"

static int check(int n, int blocks, float alpha, int relu) {
  float* x = malloc(sizeof(float) * (size_t)n);
  float* y = malloc(sizeof(float) * (size_t)n);
  float* z = malloc(sizeof(float) * (size_t)(n + 1));
  for (int i = 0; i < n; ++i) {
    x[i] = (float)(i % 37) * 0.25f - 4.0f;
    y[i] = 1.0f / (float)(i + 1) - 0.5f;
    z[i] = -7.0f;
  }
  z[n] = 12345.0f;
  for (int b = 0; b < blocks; ++b) axpy_relu(x, y, z, alpha, n, relu, b, blocks);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    volatile float p = x[i] * alpha;
    float want = p + y[i];
    if (relu && want < 0) want = 0;
    if (z[i] != want) {
      if (bad < 5) printf("n=%d i=%d: got %a want %a\n", n, i, z[i], want);
      ++bad;
    }
  }
  if (z[n] != 12345.0f) {
    printf("n=%d: the element past the end was overwritten\n", n);
    ++bad;
  }
  free(x);
  free(y);
  free(z);
  return bad;
}

int main(void) {
  int bad = 0;
  int sizes[] = {1, 7, 8, 63, 64, 65, 1000, 1003};
  for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    bad += check(sizes[k], 1, 1.5f, 0);
    bad += check(sizes[k], 3, -2.0f, 1);
  }
  printf("%s\n", bad ? "FAIL" : "OK");
  return bad != 0;
}
