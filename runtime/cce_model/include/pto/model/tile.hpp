// Tiles (docs/cce_backend.md §1.4): eleven template arguments, dynamic valid
// extents from the constructor, the byte offset from TASSIGN. A tile is a
// descriptor only; its bytes live in the model library's tile memories.
#pragma once
#include <cstdint>

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

}  // namespace pto
