/*
 * pq_lazy.c - see pq_lazy.h.
 */
#include "pq_lazy.h"

#include <threads.h>

struct pq_lazy_table pq_lazy;

static struct gt_lazylib lib = {.soname = PQ_LAZY_SONAME};
static once_flag once = ONCE_FLAG_INIT;

#define PQ_LAZY_SYM(f) GT_LAZY_SYM(pq_lazy, &lib, f)

static void load(void)
{
    if (gt_lazylib_open(&lib)) {
        PQ_LAZY_FUNCS(PQ_LAZY_SYM)
    }
}

int pq_lazy_load(struct gt_error *err)
{
    call_once(&once, load);
    return gt_lazylib_status(&lib, err);
}
