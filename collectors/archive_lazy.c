/*
 * archive_lazy.c - see archive_lazy.h.
 */
#include "archive_lazy.h"

#include <threads.h>

struct archive_lazy_table archive_lazy;

static struct gt_lazylib lib = {.soname = ARCHIVE_LAZY_SONAME};
static once_flag once = ONCE_FLAG_INIT;

#define ARCHIVE_LAZY_SYM(f) GT_LAZY_SYM(archive_lazy, &lib, f)

static void load(void)
{
    if (gt_lazylib_open(&lib)) {
        ARCHIVE_LAZY_FUNCS(ARCHIVE_LAZY_SYM)
    }
}

int archive_lazy_load(struct gt_error *err)
{
    call_once(&once, load);
    return gt_lazylib_status(&lib, err);
}
