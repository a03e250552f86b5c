// Interpreter: conversion (docs/semantics.md §9).
//   TCVT ins(src, tmp?) {rmode, sat_mode}: dst[r, c] = cvt(src[r, c]) over the
//        src valid region. rmode (default RINT) applies to float -> integer;
//        float -> float is always round-to-nearest-even; sat_mode (default
//        OFF) clamps to the destination range.
//   TDEQUANT ins(src, scale, offset): dst[r, c] = (src[r, c] - offset[r, 0]) *
//        scale[r, 0], each step rounded to f32.
#include "ops_common.h"

namespace ptoas::rt {

using namespace ops;

namespace {

RMode rmode_of(Exec& ex, const Inst& in) {
  std::string_view w = ex.m.attr_word(in, "rmode");
  if (w.empty() || w == "RINT" || w == "CAST_RINT") return RMode::Rint;
  if (w == "ROUND" || w == "CAST_ROUND") return RMode::Round;
  if (w == "FLOOR" || w == "CAST_FLOOR") return RMode::Floor;
  if (w == "CEIL" || w == "CAST_CEIL") return RMode::Ceil;
  if (w == "TRUNC" || w == "CAST_TRUNC") return RMode::Trunc;
  if (w == "ODD" || w == "CAST_ODD") return RMode::Odd;
  if (w == "NONE" || w == "CAST_NONE") return RMode::None;
  ex.fail(in, "pto.tcvt: unknown rmode '" + std::string(w) + "'");
}

bool sat_of(Exec& ex, const Inst& in) {
  std::string_view w = ex.m.attr_word(in, "sat_mode");
  if (w.empty()) w = ex.m.attr_word(in, "satMode");
  if (w.empty() || w == "OFF" || w == "off") return false;
  if (w == "ON" || w == "on") return true;
  ex.fail(in, "pto.tcvt: unknown sat_mode '" + std::string(w) + "'");
}

bool supported(DType d) {
  switch (d) {
    case DType::F32: case DType::F16: case DType::BF16:
    case DType::I8: case DType::U8: case DType::I16: case DType::U16:
    case DType::I32: case DType::U32: case DType::I64: case DType::U64:
      return true;
    default:
      return false;
  }
}

void tcvt(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  if (!supported(d.elem) || !supported(s.elem))
    ex.fail(in, "pto.tcvt from " + dn(s.elem) + " to " + dn(d.elem) +
                    " is not supported by the interpreter");
  RMode m = rmode_of(ex, in);
  bool sat = sat_of(ex, in);
  need_phys(ex, in, d, s.vrow, s.vcol, "destination");
  for (int64_t r = 0; r < s.vrow; ++r)
    for (int64_t c = 0; c < s.vcol; ++c) {
      uint8_t tmp[8];
      std::memcpy(tmp, s.at(r, c), s.esize);  // dst may alias src
      convert_elem(d.at(r, c), d.elem, tmp, s.elem, m, sat);
    }
}

void tdequant(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0), sc = ex.in_tile(in, 1),
          off = ex.in_tile(in, 2);
  need_float(ex, in, d.elem);
  need_phys(ex, in, s, d.vrow, d.vcol, "source");
  need_phys(ex, in, sc, d.vrow, 1, "scale");
  need_phys(ex, in, off, d.vrow, 1, "offset");
  for (int64_t r = 0; r < d.vrow; ++r) {
    double scale = num_f(sc, r, 0), o = num_f(off, r, 0);
    for (int64_t c = 0; c < d.vcol; ++c) {
      double x = round_to(DType::F32, num_f(s, r, c) - o);
      d.setf(r, c, round_to(DType::F32, x * scale));
    }
  }
}

}  // namespace

void register_convert_ops(HandlerTable& t) {
  t[size_t(Op::TCvt)] = tcvt;
  t[size_t(Op::TDequant)] = tdequant;
}

}  // namespace ptoas::rt
