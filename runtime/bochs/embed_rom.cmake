# Writes the Bochs boot ROM (a flat binary, -DIN=) as a C++ byte array
# (-DOUT=) for bochs_runner.cpp. Run with cmake -P at build time.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
# 32 bytes a line, then every byte as 0xNN.
string(REPEAT "[0-9a-f]" 64 line)
string(REGEX REPLACE "(${line})" "\\1\n" hex "${hex}")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
file(WRITE "${OUT}.tmp"
  "// Generated from runtime/bochs/boot.S by embed_rom.cmake; do not edit.\n"
  "#include <cstddef>\n"
  "namespace ptoas::rt {\n"
  "extern const unsigned char kBochsRom[];\n"
  "extern const size_t kBochsRomSize;\n"
  "alignas(16) const unsigned char kBochsRom[] = {\n${hex}};\n"
  "const size_t kBochsRomSize = ${bytes};\n"
  "}  // namespace ptoas::rt\n")
file(RENAME "${OUT}.tmp" "${OUT}")
