// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Commit-time normalization of a layout tree, as small passes in the style of TEMPI's simplify(). Each pass rewrites
// one node whose children are already normalized, returns whether it changed anything, and keeps the bytes the node
// selects and their packed order. normalize() runs them bottom-up to a fixpoint; every pass is linear in the node's
// description, so a commit stays linear in the type's.

#include "KokkosDDT_Layout.hpp"

namespace KokkosDDT::Impl {

bool hoist_child_disp(LayoutPtr& n);          // a child's constant offset moves into its parent's
bool fold_contig_child(LayoutPtr& n);         // a Contig child becomes the parent's terminal element
bool split_blocklength(LayoutPtr& n);         // blocks of b elements -> b-times-larger elements, or a nested level
bool terminal_to_contig(LayoutPtr& n);        // one run, or runs that abut (vector stride == blocklength) -> Contig
bool drop_count_one(LayoutPtr& n);            // a level with one block disappears
bool merge_nested_strided(LayoutPtr& n);      // strided over strided whose strides line up -> one level
bool uniform_indexed_to_block(LayoutPtr& n);  // indexed with equal blocklengths -> indexed_block
bool even_block_to_strided(LayoutPtr& n);     // indexed_block with evenly spaced displacements -> strided
bool struct_to_indexed(LayoutPtr& n);         // struct of terminal fields, or of one repeated child -> indexed
bool merge_adjacent_blocks(LayoutPtr& n);     // abutting blocks merge, empty blocks go

void normalize(LayoutPtr& root);
// The same for a tree whose children are normalized already: the passes at the root only (what normalize() does
// after normalizing the children; commit adds the instance level over a normalized type this way).
void normalize_top(LayoutPtr& root);

// The widest power-of-two word (1..16 bytes) that divides every run length and every offset of the layout, so that a
// word never straddles two runs and every word of a suitably aligned buffer is aligned. `repeated`: count > 1
// instances, so the root extent matters too.
int word_size(const LayoutNode& root, bool repeated);
struct WordSizes {
  int single, repeated;
};
WordSizes word_sizes(const LayoutNode& root);  // both at once (one walk over the layout)

}  // namespace KokkosDDT::Impl
