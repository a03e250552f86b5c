// Reading the text of opaque ops (Syn::Opaque keeps the statement after the
// op name as its __body attribute, regions replaced by \x01). The VPTO,
// SIMT and NPU rules read their clauses from it: `dst_mode(split_m)`,
// `pre_quant(%s, mode = f32_bf16)`, `tf32_mode(round_even)`, a bare `sat`.
// Words are whole words: an identifier character (letters, digits, '_',
// '.', '%') on either side makes no match, so `sat` is not found in `nosat`
// or `%sat`.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir.h"

namespace ptoas {

// The offset of the first whole-word `w` in `text` at or after `from`, or
// npos. Stops at the attribute dictionary and the type list (a top-level
// '{' or ':') when `clauses_only`.
size_t find_word(std::string_view text, std::string_view w, size_t from = 0, bool clauses_only = true);

// The text inside the parentheses right after `at` (spaces skipped), e.g.
// `split_m` for `dst_mode(split_m)` with `at` just past the word; false
// when no '(' follows.
bool paren_after(std::string_view text, size_t at, std::string_view& inside);

// The `key = value` item of a clause's inside (`mode = f32_bf16` ->
// "f32_bf16"); empty when absent.
std::string clause_item(std::string_view inside, std::string_view key);

// The comma-separated items of a clause's inside, trimmed.
std::vector<std::string_view> split_items(std::string_view inside);

// The operand of `in` named `%name` (name with or without '%'), or kNone.
ValueId operand_named(const Module& m, const Inst& in, std::string_view name);

// `!pto.ptr<T[, space]>` split into T and the address space word ("gm"
// when omitted, as the printer omits it); false for any other type.
bool ptr_parts(std::string_view type, std::string& elem, std::string& space);

// The text of attribute `key` of `in` (an enum word or a text), empty if
// none; opaque_body: the statement text of an opaque op (its __body).
std::string_view attr_text(const Module& m, const Inst& in, std::string_view key);
std::string_view opaque_body(const Module& m, const Inst& in);

// The two integers of `key [a, b]` in an opaque op's text (`sizes [16,
// 32]`); false if absent or not two non-negative integers.
bool bracket_pair(std::string_view body, std::string_view key, int64_t& a, int64_t& b);

// The text between the op's last top-level ':' and the end (its type
// list), empty when there is none.
std::string_view type_list_text(std::string_view body);

}  // namespace ptoas
