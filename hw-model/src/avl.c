/*
 * Intrusive AVL tree (avl.h).  Heights are kept exactly; after an insert
 * or a removal the path to the root is rebalanced with single and double
 * rotations, so the height stays below 1.45 log2(n + 2).
 */
#include <glib.h>

#include "avl.h"

static void *item_of(const AvlTree *t, const AvlNode *n)
{
    return n ? (char *)n - t->offset : NULL;
}

static AvlNode *node_of(const AvlTree *t, const void *item)
{
    return (AvlNode *)((char *)item + t->offset);
}

static int height(const AvlNode *n)
{
    return n ? n->height : 0;
}

static void fix_height(AvlNode *n)
{
    n->height = 1 + MAX(height(n->left), height(n->right));
}

/* `parent`'s child `old` (the root if parent is NULL) becomes `new`. */
static void replace_child(AvlTree *t, AvlNode *parent, AvlNode *old,
                          AvlNode *new)
{
    if (!parent) {
        t->root = new;
    } else if (parent->left == old) {
        parent->left = new;
    } else {
        parent->right = new;
    }
    if (new) {
        new->parent = parent;
    }
}

/* x's right child takes x's place, x becomes its left child. */
static AvlNode *rotate_left(AvlTree *t, AvlNode *x)
{
    AvlNode *y = x->right;

    replace_child(t, x->parent, x, y);
    x->right = y->left;
    if (x->right) {
        x->right->parent = x;
    }
    y->left = x;
    x->parent = y;
    fix_height(x);
    fix_height(y);
    return y;
}

static AvlNode *rotate_right(AvlTree *t, AvlNode *x)
{
    AvlNode *y = x->left;

    replace_child(t, x->parent, x, y);
    x->left = y->right;
    if (x->left) {
        x->left->parent = x;
    }
    y->right = x;
    x->parent = y;
    fix_height(x);
    fix_height(y);
    return y;
}

/* Restore heights and balance from `n` up: a node whose subtree changed
 * below it.  Above a balanced node whose height did not change, nothing
 * did. */
static void rebalance(AvlTree *t, AvlNode *n)
{
    while (n) {
        int was = n->height;
        int bal = height(n->left) - height(n->right);
        if (bal > 1) {
            if (height(n->left->left) < height(n->left->right)) {
                rotate_left(t, n->left);
            }
            n = rotate_right(t, n);
        } else if (bal < -1) {
            if (height(n->right->right) < height(n->right->left)) {
                rotate_right(t, n->right);
            }
            n = rotate_left(t, n);
        } else {
            fix_height(n);
            if (n->height == was) {
                return;
            }
        }
        n = n->parent;
    }
}

void hwm_avl_init(AvlTree *t, AvlCmp cmp, size_t offset)
{
    *t = (AvlTree){ .cmp = cmp, .offset = offset };
}

void hwm_avl_clear(AvlTree *t, void (*destroy)(void *item))
{
    AvlNode *n = t->root;

    /* post-order without a stack: cut each leaf off its parent */
    while (n) {
        if (n->left) {
            n = n->left;
        } else if (n->right) {
            n = n->right;
        } else {
            AvlNode *p = n->parent;
            if (p && p->left == n) {
                p->left = NULL;
            } else if (p) {
                p->right = NULL;
            }
            if (destroy) {
                destroy(item_of(t, n));
            }
            n = p;
        }
    }
    t->root = NULL;
}

void hwm_avl_insert(AvlTree *t, void *item)
{
    AvlNode *n = node_of(t, item), *p = NULL, **link = &t->root;

    while (*link) {
        p = *link;
        link = t->cmp(item, item_of(t, p)) < 0 ? &p->left : &p->right;
    }
    *n = (AvlNode){ .parent = p, .height = 1 };
    *link = n;
    rebalance(t, p);
}

void hwm_avl_remove(AvlTree *t, void *item)
{
    AvlNode *n = node_of(t, item), *from;

    if (n->left && n->right) {
        /* the successor (no left child) takes n's place */
        AvlNode *s = n->right;
        while (s->left) {
            s = s->left;
        }
        if (s == n->right) {
            from = s;
        } else {
            from = s->parent;
            from->left = s->right;
            if (s->right) {
                s->right->parent = from;
            }
            s->right = n->right;
            s->right->parent = s;
        }
        s->left = n->left;
        s->left->parent = s;
        s->height = n->height;
        replace_child(t, n->parent, n, s);
    } else {
        from = n->parent;
        replace_child(t, n->parent, n, n->left ? n->left : n->right);
    }
    *n = (AvlNode){ 0 };
    rebalance(t, from);
}

void hwm_avl_reposition(AvlTree *t, void *item)
{
    hwm_avl_remove(t, item);
    hwm_avl_insert(t, item);
}

void *hwm_avl_first(const AvlTree *t)
{
    AvlNode *n = t->root;
    while (n && n->left) {
        n = n->left;
    }
    return item_of(t, n);
}

void *hwm_avl_last(const AvlTree *t)
{
    AvlNode *n = t->root;
    while (n && n->right) {
        n = n->right;
    }
    return item_of(t, n);
}

void *hwm_avl_next(const AvlTree *t, const void *item)
{
    AvlNode *n = node_of(t, item);

    if (n->right) {
        for (n = n->right; n->left; n = n->left) {
        }
        return item_of(t, n);
    }
    while (n->parent && n->parent->right == n) {
        n = n->parent;
    }
    return item_of(t, n->parent);
}

void *hwm_avl_prev(const AvlTree *t, const void *item)
{
    AvlNode *n = node_of(t, item);

    if (n->left) {
        for (n = n->left; n->right; n = n->right) {
        }
        return item_of(t, n);
    }
    while (n->parent && n->parent->left == n) {
        n = n->parent;
    }
    return item_of(t, n->parent);
}

/* The first item that compares >= key (strict: > key). */
static AvlNode *bound(const AvlTree *t, const void *key, bool strict)
{
    AvlNode *n = t->root, *best = NULL;

    while (n) {
        int c = t->cmp(item_of(t, n), key);
        if (c > 0 || (c == 0 && !strict)) {
            best = n;
            n = n->left;
        } else {
            n = n->right;
        }
    }
    return best;
}

void *hwm_avl_lower_bound(const AvlTree *t, const void *key)
{
    return item_of(t, bound(t, key, false));
}

void *hwm_avl_upper_bound(const AvlTree *t, const void *key)
{
    return item_of(t, bound(t, key, true));
}

void *hwm_avl_before(const AvlTree *t, const void *key)
{
    AvlNode *n = t->root, *best = NULL;

    while (n) {
        if (t->cmp(item_of(t, n), key) < 0) {
            best = n;
            n = n->right;
        } else {
            n = n->left;
        }
    }
    return item_of(t, best);
}
