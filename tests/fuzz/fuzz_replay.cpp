// A plain main for a libFuzzer target's LLVMFuzzerTestOneInput: runs it once
// on every file given (a directory: every file in it, README* excepted, in
// name order), in this process, without libFuzzer. The fuzz target's own
// checks (fuzz_frontend.cpp: no crash, printing a fixed point, the
// optimizer's output accepted again) abort on a failure; a sanitizer build
// reports what they do not. One process for a thousand inputs, where one
// ptoas process each takes minutes under ASan.
//   fuzz_replay PATH...   prints "fuzz_replay: N inputs", exit 0
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (!fs::is_directory(argv[i], ec)) {
      files.push_back(argv[i]);
      continue;
    }
    std::vector<std::string> in_dir;
    for (const auto& e : fs::directory_iterator(argv[i], ec))
      if (e.is_regular_file() && e.path().filename().string().rfind("README", 0) != 0)
        in_dir.push_back(e.path().string());
    if (ec) {
      std::fprintf(stderr, "fuzz_replay: cannot list %s: %s\n", argv[i], ec.message().c_str());
      return 2;
    }
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  if (files.empty()) {
    std::fprintf(stderr, "fuzz_replay: no inputs\n");
    return 2;
  }
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) {
      std::fprintf(stderr, "fuzz_replay: cannot read %s\n", f.c_str());
      return 2;
    }
    std::fprintf(stderr, "%s\n", f.c_str());  // the input a crash report is about
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("fuzz_replay: %zu inputs\n", files.size());
  return 0;
}
