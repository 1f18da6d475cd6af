/*
 * An intrusive AVL tree: the node lives inside the item, so an item can be
 * in several trees at once, leaves one without a search and costs no
 * allocation (Linux's rbtree is the model).  The write cache's indexes
 * (cache.c) need ordered search with bounds and neighbour walks.  GTree
 * has bounds and node walks only from GLib 2.68, which QEMU does not allow
 * (GLIB_VERSION_MAX_ALLOWED 2.66); GSequence, which 2.66 has, allocates a
 * temporary sequence in every search and insert, and bench-model's QD1
 * sequential FUA writes ran 2.7x slower with it.
 *
 * Keys are unique: the comparison must order any two items in a tree.
 * Every operation is O(log n); hwm_avl_next/prev are O(1) amortized.
 */
#ifndef HWM_AVL_H
#define HWM_AVL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct AvlNode {
    struct AvlNode *parent, *left, *right;
    int height;                 /* of the subtree rooted here: a leaf is 1 */
} AvlNode;

/* <0, 0 or >0 as item a sorts before, with or after item b. */
typedef int (*AvlCmp)(const void *a, const void *b);

typedef struct {
    AvlNode *root;
    AvlCmp cmp;
    size_t offset;              /* of the AvlNode within an item */
} AvlTree;

/* An empty tree of items whose node is at `offset` (offsetof). */
void hwm_avl_init(AvlTree *t, AvlCmp cmp, size_t offset);
static inline bool hwm_avl_empty(const AvlTree *t)
{
    return t->root == NULL;
}
/* Empty the tree, calling `destroy` (may be NULL) on every item, children
 * before parents: items may be freed. */
void hwm_avl_clear(AvlTree *t, void (*destroy)(void *item));

/* `item` must not compare equal to one already in the tree. */
void hwm_avl_insert(AvlTree *t, void *item);
void hwm_avl_remove(AvlTree *t, void *item);
/* `item` is in the tree and its key changed: put it where it now sorts. */
void hwm_avl_reposition(AvlTree *t, void *item);

/* Items in order, or NULL: the first, the last, the neighbours of an item
 * in the tree, the first >= key and the first > key (`key` is an item
 * with the compared fields set). */
void *hwm_avl_first(const AvlTree *t);
void *hwm_avl_last(const AvlTree *t);
void *hwm_avl_next(const AvlTree *t, const void *item);
void *hwm_avl_prev(const AvlTree *t, const void *item);
void *hwm_avl_lower_bound(const AvlTree *t, const void *key);
void *hwm_avl_upper_bound(const AvlTree *t, const void *key);
/* The last < key (the neighbour before hwm_avl_lower_bound's answer). */
void *hwm_avl_before(const AvlTree *t, const void *key);

#endif
