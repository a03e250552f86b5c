// Internal to the random program generator (random_gen.cpp: the program and
// its op chain; random_gen_patterns.cpp: the patterns real programs broke
// that the chain alone did not produce).
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "random_gen.h"

namespace opt_rand::detail {

struct Tile {
  std::string name;
  bool col = false;   // an R x 1 col_major (DN) tile
  bool wide = false;  // R x C with the whole tile valid (ragged shapes only)
  bool row = false;   // a 1 x C row (column reductions, column expands)
  bool defined = false;
  bool padded = false;  // tloaded in this body: the part outside the valid region is the pad value
  int taint = 0;
  int group = -1;  // a storage group (Gen::groups_) when other tiles may name its storage
};

// Tiles that name one storage: `exact` (a treshape of the same type, or the
// same explicit address) share what was last written; otherwise (a tile an
// scf.if or scf.for yields) any member may be any other, so taints only add up.
struct Group {
  std::vector<int> tiles;
  bool exact = true;
};

// Taint bits: where an exact comparison is not promised (DESIGN §6).
constexpr int kSum = 1, kTrans = 2;

class Gen {
 public:
  Gen(uint64_t seed, Program& p, unsigned allowed)
      : r_(seed), r2_(seed ^ 0xC0F7ull), r3_(seed ^ 0xA11A5ull), r4_(seed ^ 0x5CA1A4ull), p_(p), allowed_(allowed) {}

  void build();

 private:
  // type spellings
  std::string et() const { return et_name(p_.et); }
  std::string full_t() const { return full_t(et()); }
  std::string full_t(const std::string& e) const {
    std::string s = "!pto.tile_buf<vec, " + std::to_string(p_.R) + "x" + std::to_string(p_.C) + "x" + e;
    switch (p_.shape) {
      case Shape::Static: return s + ">";
      case Shape::RowsStaticCols: return s + ", valid=?x" + std::to_string(p_.C) + ">";
      default: return s + ", valid=?x?>";
    }
  }
  std::string col_t() const {
    std::string s = "!pto.tile_buf<vec, " + std::to_string(p_.R) + "x1x" + et();
    if (p_.shape == Shape::Static) return s + ", blayout=col_major>";
    return s + ", valid=?x1, blayout=col_major>";
  }
  std::string part_t() const {
    switch (p_.shape) {
      case Shape::Static: return "!pto.partition_tensor_view<" + std::to_string(p_.R) + "x" + std::to_string(p_.C) + "x" + et() + ">";
      case Shape::RowsStaticCols: return "!pto.partition_tensor_view<?x" + std::to_string(p_.C) + "x" + et() + ">";
      default: return "!pto.partition_tensor_view<?x?x" + et() + ">";
    }
  }
  std::string colpart_t() const {
    if (p_.shape == Shape::Static) return "!pto.partition_tensor_view<" + std::to_string(p_.R) + "x1x" + et() + ">";
    return "!pto.partition_tensor_view<?x1x" + et() + ">";
  }
  std::string tv_t() const { return "!pto.tensor_view<?x?x" + et() + ">"; }
  const std::string& ty(const Tile& t) { return t.col ? colt_ : t.wide ? widet_ : t.row ? rowt_ : fullt_; }

  void line(const std::string& s) { lines_.push_back({ind_, s}); }
  // tile d now holds a value (with the given taint bits)
  void wrote(int d, int taint) {
    tiles_[size_t(d)].defined = true;
    tiles_[size_t(d)].taint = taint;
  }
  void wrap_fuse();
  std::string fresh(const std::string& base) { return "%" + base + std::to_string(id_++); }

  // scalars
  std::string scalar_const(double v, bool hex_ok);
  void make_scalars(bool in_body);
  std::string pick_scalar();

  // tiles
  int pick_defined(bool col);
  int pick_any(bool col);
  int pick_dst(bool col, int avoid = -1);
  std::string valid_args(bool col) const;  // an alloc_tile's valid_row / valid_col
  void alloc_tiles();
  void cvt_round_trip();
  void emit_op();
  void emit_final_stores();
  void repeat_last();

  // views of the current body
  struct View {
    std::string name;     // the partition view
    int buf = -1;         // index into p_.bufs
    bool col = false;
    bool stored = false;  // stored in this body (a tload from it is defined)
    int rank = 2;         // 3-5: leading extents of 1
    bool split = false;   // rank 3-5 with the rows as (R/2) x 2 (tv_split_)
  };
  std::string partition(const std::string& tv, bool col, bool dup_index);
  void store(int tile, int view);
  void load(int view, int tile);

  // ---- the patterns of random_gen_patterns.cpp ----
  void pick_patterns();
  void alias_tiles();                // after alloc_tiles: treshape aliases
  bool pattern_op();                 // one of the op-level patterns, or false
  bool col_row_round_trip();         // R x 1 -> 1 x R -> op -> R x 1 (the norm kernels' shape)
  bool if_yields_tile();
  bool for_yields_tile();
  bool write_twice();
  void high_rank_views();            // rank 3-5 tensor views of every row-major buffer
  int high_rank_partition(int view); // a fresh rank 3-5 partition at view's place; -1 if none
  void place_tiles();                // level3: an addr for every alloc_tile
  bool scalar_mem_op();              // load_scalar / store_scalar at the body's first element
  int join(int a, int b, bool exact);  // puts tile b in a's storage group; returns the group
  void sync_groups(size_t from_line);  // the state of each tile written since from_line, to its group
  int add_tile(const std::string& name, bool col, int taint);
  std::string view_t(const View& v) const;

  Rng r_;
  // The tcvt round trips' own stream: with it, every other line of a
  // seed's program is what it was without them.
  Rng r2_;
  // The patterns' own stream (as r2_ for the tcvts).
  Rng r3_;
  // The GM scalar pattern's own (added later: r3_'s draws stay as they were).
  Rng r4_;
  Program& p_;
  unsigned allowed_;  // Pattern bits
  std::vector<std::pair<std::string, std::string>> lines_;  // indent, text
  std::string ind_ = "    ";
  int id_ = 0;
  std::string fullt_, colt_, widet_, rowt_;
  std::vector<Tile> tiles_;
  std::vector<std::string> scalars_;
  std::vector<View> views_;
  std::vector<std::string> tv_;      // tensor view per buf
  std::vector<std::string> tv_alias_;  // a second tensor view of the same output buffer
  std::string r0_, k0_, vr_, vc_, ti_, tj_;  // the body's tile offsets / valid extents
  int tmp_ = -1;
  int ops_left_ = 0;
  std::string cvt_, cvt_t_;  // a full tile of the other float type (f32 <-> f16 / bf16), its type
  std::vector<Group> groups_;
  std::vector<std::string> tv_rank_;  // per buf: a rank 3-5 tensor view ("" if none)
  std::vector<int> tv_rank_n_;
  // per buf: the rank 3-5 view splits the rows into (m/2) x 2, so a tile's
  // rows walk two dimensions (the row odometer carries)
  std::vector<bool> tv_split_;
  std::map<std::string, std::string> same_addr_;  // level3: tile -> the earlier tile whose address it takes
};

std::string fmt_double(double v);

}  // namespace opt_rand::detail
