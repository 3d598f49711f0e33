/*
 * calibmemo.h - a server's own copies of the calibration states its
 * answers kept (calibrate.c keeps them in the store's fit cache, shared
 * with the command line and other servers), so that an answer that goes
 * on from a state reads its bytes from memory instead of the store: at
 * most a count and a number of bytes of them, the least recently used
 * first out.
 *
 * A copy is only ever used when the store still holds it: an answer
 * reads the state's answer row first anyway (its head and answer, the
 * state's first bytes), and the copy is used only when those bytes are
 * its own first bytes.  A sample that drops the state or its answer
 * changes or removes that row (db/fitcache.h), so a copy the store no
 * longer has is never used; two copies with the same first bytes are
 * the same state (the same origin, moments and anchor: calibrate.c's
 * states are exact).
 */
#ifndef GT_CALIBMEMO_H
#define GT_CALIBMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_calib_memo;

/* At most max_states copies and max_bytes of them; NULL when out of
 * memory.  Safe for any number of threads. */
struct gt_calib_memo *gt_calib_memo_new(size_t max_states, size_t max_bytes);
void gt_calib_memo_free(struct gt_calib_memo *m);

/* The copy of the state of (root, window, key) whose first plen bytes
 * are prefix's, into *buf (caller frees), *len bytes: true when there is
 * one (it is then the most recently used). */
bool gt_calib_memo_get(struct gt_calib_memo *m, int64_t root, long window, const char *key,
                       const void *prefix, size_t plen, void **buf, size_t *len);

/* Keep a copy of buf as the state of (root, window, key), replacing the
 * one before; one larger than the whole budget is not kept. */
void gt_calib_memo_put(struct gt_calib_memo *m, int64_t root, long window, const char *key,
                       const void *buf, size_t len);

struct gt_calib_memo_stats {
    size_t states, bytes;           /* held now */
    size_t max_states, max_bytes;   /* the caps */
    uint64_t hits, misses;          /* gets that found a copy, and not */
};
void gt_calib_memo_stats(struct gt_calib_memo *m, struct gt_calib_memo_stats *s);

#endif
