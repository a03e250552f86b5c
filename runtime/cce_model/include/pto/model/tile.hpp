// Tiles (docs/cce_backend.md §1.4): eleven template arguments, dynamic valid
// extents from the constructor, the byte offset from TASSIGN. A tile is a
// descriptor only; its bytes live in the model library's tile memories.
#pragma once
#include <cstdint>
#include <cstring>

#include "abi.h"

namespace pto {

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling };  // ORDER: ptoas::Loc
enum class BLayout { RowMajor, ColMajor };
enum class SLayout { NoneBox, RowMajor, ColMajor };
enum class PadValue { Null, Zero, Max, Min };
enum class CompactMode { Null, Normal, RowPlusOne };

template <TileType TT, class T, int Rows, int Cols, BLayout BL = BLayout::RowMajor,
          int ValidRows = Rows, int ValidCols = Cols, SLayout SL = SLayout::NoneBox,
          int Fractal = 512, PadValue Pad = PadValue::Null, CompactMode CM = CompactMode::Null>
struct Tile {
  using DType = T;
  static constexpr TileType kType = TT;
  static constexpr int kRows = Rows, kCols = Cols, kValidRows = ValidRows, kValidCols = ValidCols;
  static constexpr BLayout kBLayout = BL;
  static constexpr SLayout kSLayout = SL;
  static constexpr int kFractal = Fractal;
  static constexpr PadValue kPad = Pad;
  static constexpr CompactMode kCompact = CM;

  Tile() = default;
  // One dynamic extent: its value (the row when both could be meant).
  explicit Tile(int64_t n) {
    if (ValidRows == -1) vrow_ = int32_t(n);
    else vcol_ = int32_t(n);
  }
  Tile(int64_t r, int64_t c) : vrow_(int32_t(r)), vcol_(int32_t(c)) {}

  int64_t GetValidRow() const { return vrow_; }
  int64_t GetValidCol() const { return vcol_; }
  void SetValidShape(int64_t r, int64_t c) {
    vrow_ = int32_t(r);
    vcol_ = int32_t(c);
  }

  // Element k of the tile's storage (PTO-ISA's flat index).
  T GetValue(int64_t k) const {
    T v;
    std::memcpy(&v, pto_model_tile_elem(int32_t(TT), offset_, k, int32_t(sizeof(T)), int64_t(Rows) * Cols), sizeof v);
    return v;
  }
  void SetValue(int64_t k, T v) {
    std::memcpy(pto_model_tile_elem(int32_t(TT), offset_, k, int32_t(sizeof(T)), int64_t(Rows) * Cols), &v, sizeof v);
  }

  int32_t vrow_ = ValidRows == -1 ? Rows : ValidRows;
  int32_t vcol_ = ValidCols == -1 ? Cols : ValidCols;
  uint64_t offset_ = 0;
  bool assigned_ = false;
};

template <class TileT>
inline void TASSIGN(TileT& t, uint64_t offset) {
  t.offset_ = offset;
  t.assigned_ = true;
}

// dst names src's memory as another tile type of the same location and
// size (pto.treshape): no data moves, so no pipe runs it.
template <class DstT, class SrcT>
inline void TRESHAPE(DstT& dst, const SrcT& src) {
  static_assert(DstT::kType == SrcT::kType, "TRESHAPE: tiles of different locations");
  static_assert(sizeof(typename DstT::DType) * DstT::kRows * DstT::kCols ==
                    sizeof(typename SrcT::DType) * SrcT::kRows * SrcT::kCols,
                "TRESHAPE: tiles of different sizes");
  dst.offset_ = src.offset_;
  dst.assigned_ = src.assigned_;
}

}  // namespace pto
