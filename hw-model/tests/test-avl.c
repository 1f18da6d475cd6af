/*
 * The write cache's tree (hw-model/src/avl.c) against a sorted array:
 * seeded random inserts, removals and key changes, and after each one the
 * tree's shape (order, parent links, exact heights, balance) and every
 * query (first, last, next, prev, both bounds, before) checked.
 */
#include <math.h>
#include <stddef.h>

#include "avl.h"
#include "hwm.h"

typedef struct {
    uint64_t key;
    bool in;
    AvlNode node;
} Item;

static int cmp_item(const void *a, const void *b)
{
    uint64_t x = ((const Item *)a)->key, y = ((const Item *)b)->key;
    return x < y ? -1 : x > y;
}

/* Height of the subtree at n, asserting links, order and balance. */
static int check_node(const AvlNode *n, const AvlNode *parent,
                      const uint64_t *lo, const uint64_t *hi, size_t *count)
{
    if (!n) {
        return 0;
    }
    const Item *it = (const Item *)((const char *)n - offsetof(Item, node));
    g_assert_true(n->parent == parent);
    g_assert_true(!lo || it->key > *lo);
    g_assert_true(!hi || it->key < *hi);
    int l = check_node(n->left, n, lo, &it->key, count);
    int r = check_node(n->right, n, &it->key, hi, count);
    g_assert_cmpint(l - r, <=, 1);
    g_assert_cmpint(r - l, <=, 1);
    g_assert_cmpint(n->height, ==, 1 + MAX(l, r));
    (*count)++;
    return n->height;
}

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The tree holds exactly the keys of `ref` (sorted); check every query. */
static void check_tree(const AvlTree *t, GArray *ref, uint64_t key_space)
{
    size_t count = 0;
    int h = check_node(t->root, NULL, NULL, NULL, &count);
    g_assert_cmpuint(count, ==, ref->len);
    /* AVL: height < 1.45 log2(n + 2) */
    g_assert_cmpfloat((double)h, <, 1.45 * log2((double)ref->len + 2) + 1);

    const Item *it = hwm_avl_first(t);
    for (guint i = 0; i < ref->len; i++) {
        g_assert_nonnull(it);
        g_assert_cmpuint(it->key, ==, g_array_index(ref, uint64_t, i));
        const Item *p = hwm_avl_prev(t, it);
        if (i == 0) {
            g_assert_null(p);
        } else {
            g_assert_cmpuint(p->key, ==, g_array_index(ref, uint64_t, i - 1));
        }
        it = hwm_avl_next(t, it);
    }
    g_assert_null(it);
    const Item *last = hwm_avl_last(t);
    g_assert_true(ref->len ? last && last->key ==
                  g_array_index(ref, uint64_t, ref->len - 1) : !last);

    /* every key position, present or not, and one past the end */
    for (uint64_t k = 0; k <= key_space; k++) {
        Item key = { .key = k };
        guint i = 0;
        while (i < ref->len && g_array_index(ref, uint64_t, i) < k) {
            i++;
        }
        const Item *lb = hwm_avl_lower_bound(t, &key);
        const Item *ub = hwm_avl_upper_bound(t, &key);
        const Item *bf = hwm_avl_before(t, &key);
        guint j = i < ref->len && g_array_index(ref, uint64_t, i) == k ?
                  i + 1 : i;
        g_assert_true(i < ref->len ? lb && lb->key ==
                      g_array_index(ref, uint64_t, i) : !lb);
        g_assert_true(j < ref->len ? ub && ub->key ==
                      g_array_index(ref, uint64_t, j) : !ub);
        g_assert_true(i > 0 ? bf && bf->key ==
                      g_array_index(ref, uint64_t, i - 1) : !bf);
    }
}

static void ref_del(GArray *ref, uint64_t k)
{
    for (guint i = 0; i < ref->len; i++) {
        if (g_array_index(ref, uint64_t, i) == k) {
            g_array_remove_index(ref, i);
            return;
        }
    }
    g_assert_not_reached();
}

static int destroyed;

static void count_destroy(void *item)
{
    ((Item *)item)->in = false;
    destroyed++;
}

static void test_random_ops(void)
{
    enum { SPACE = 300, OPS = 6000 };
    static Item items[SPACE];
    AvlTree t;
    g_autoptr(GArray) ref = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    uint64_t s = 42;

    hwm_avl_init(&t, cmp_item, offsetof(Item, node));
    for (int op = 0; op < OPS; op++) {
        Item *it = &items[hwm_splitmix64(&s) % SPACE];
        if (!it->in) {
            it->key = (uint64_t)(it - items) * 2;   /* even; odd probe gaps */
            hwm_avl_insert(&t, it);
            g_array_append_val(ref, it->key);
            it->in = true;
        } else if (hwm_splitmix64(&s) % 4 == 0) {
            /* a key change to a free odd key keeps the keys unique */
            ref_del(ref, it->key);
            it->key |= 1;
            hwm_avl_reposition(&t, it);
            g_array_append_val(ref, it->key);
        } else {
            hwm_avl_remove(&t, it);
            ref_del(ref, it->key);
            it->in = false;
        }
        g_array_sort(ref, cmp_u64);
        if (op % 50 == 0 || op > OPS - 20) {
            check_tree(&t, ref, 2 * SPACE);
        }
    }
    int held = (int)ref->len;
    destroyed = 0;
    hwm_avl_clear(&t, count_destroy);
    g_assert_cmpint(destroyed, ==, held);
    g_assert_true(hwm_avl_empty(&t));
    g_assert_null(hwm_avl_first(&t));
}

/* Sorted and reverse-sorted inserts, the worst case for an unbalanced
 * tree: the height stays logarithmic. */
static void test_sorted_inserts(void)
{
    enum { N = 4096 };
    static Item items[2][N];
    for (int dir = 0; dir < 2; dir++) {
        AvlTree t;
        hwm_avl_init(&t, cmp_item, offsetof(Item, node));
        for (int i = 0; i < N; i++) {
            items[dir][i].key = (uint64_t)(dir ? N - i : i);
            hwm_avl_insert(&t, &items[dir][i]);
        }
        size_t count = 0;
        int h = check_node(t.root, NULL, NULL, NULL, &count);
        g_assert_cmpuint(count, ==, N);
        g_assert_cmpint(h, <=, 13);     /* a perfect tree of 4096 has 13 */
        hwm_avl_clear(&t, NULL);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/avl/random-ops", test_random_ops);
    g_test_add_func("/avl/sorted-inserts", test_sorted_inserts);
    return g_test_run();
}
