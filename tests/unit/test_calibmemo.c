/* test_calibmemo.c - a server's copies of calibration states
 * (calibmemo.h): found only under their root, window and key and only
 * when the store's first bytes are theirs; at most the count and bytes
 * asked, the least recently used (by get or put) out first; one larger
 * than the whole budget not kept; counted. */
#include "testutil.h"
#include "advisor/calibmemo.h"

static void put(struct gt_calib_memo *m, int64_t root, const char *key, char fill, size_t len)
{
    char *b = malloc(len);
    assert_non_null(b);
    memset(b, fill, len);
    gt_calib_memo_put(m, root, 16, key, b, len);
    free(b);
}

/* Whether (root, key)'s copy starts with n bytes of fill. */
static bool has(struct gt_calib_memo *m, int64_t root, const char *key, char fill, size_t n)
{
    char p[64];
    memset(p, fill, n);
    void *buf;
    size_t len;
    bool found = gt_calib_memo_get(m, root, 16, key, p, n, &buf, &len);
    free(buf);
    return found;
}

static void test_found_and_out(void **state)
{
    (void)state;
    struct gt_calib_memo *m = gt_calib_memo_new(3, 1000);
    assert_non_null(m);
    put(m, 1, "a", 'a', 100);
    put(m, 1, "b", 'b', 100);
    put(m, 2, "a", 'c', 100);
    assert_true(has(m, 1, "a", 'a', 10));
    assert_false(has(m, 1, "a", 'b', 10));        /* the store holds another */
    assert_false(has(m, 3, "a", 'a', 10));        /* another root */
    void *buf;
    size_t len;
    char p[8] = "aaaaaaa";
    assert_false(gt_calib_memo_get(m, 1, 32, "a", p, 7, &buf, &len));   /* another window */
    assert_null(buf);
    /* a fourth: the least recently used ("b" of 1) goes, "a" was asked */
    put(m, 1, "d", 'd', 100);
    assert_false(has(m, 1, "b", 'b', 10));
    assert_true(has(m, 1, "a", 'a', 10) && has(m, 2, "a", 'c', 10) && has(m, 1, "d", 'd', 10));
    /* the same key again: replaced, not doubled */
    put(m, 1, "a", 'e', 50);
    assert_true(has(m, 1, "a", 'e', 10));
    struct gt_calib_memo_stats s;
    gt_calib_memo_stats(m, &s);
    assert_int_equal(s.states, 3);
    assert_int_equal(s.bytes, 250);
    assert_int_equal(s.max_states, 3);
    assert_int_equal(s.max_bytes, 1000);
    /* the bytes' cap: 900 more leave room for it alone */
    put(m, 5, "big", 'f', 900);
    gt_calib_memo_stats(m, &s);
    assert_true(s.bytes <= 1000);
    assert_true(has(m, 5, "big", 'f', 10));
    assert_false(has(m, 1, "d", 'd', 10));
    /* larger than the whole budget: not kept, nothing else lost */
    put(m, 6, "huge", 'g', 1001);
    assert_false(has(m, 6, "huge", 'g', 10));
    assert_true(has(m, 5, "big", 'f', 10));
    /* a prefix longer than the copy: not it */
    char longp[2000];
    memset(longp, 'f', sizeof longp);
    assert_false(gt_calib_memo_get(m, 5, 16, "big", longp, sizeof longp, &buf, &len));
    gt_calib_memo_stats(m, &s);
    assert_true(s.hits == 7 && s.misses == 7);
    gt_calib_memo_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found_and_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
