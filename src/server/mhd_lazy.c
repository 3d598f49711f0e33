/*
 * mhd_lazy.c - see mhd_lazy.h.
 */
#include "mhd_lazy.h"

#include <threads.h>

struct mhd_lazy_table mhd_lazy;

static struct gt_lazylib lib = {.soname = MHD_LAZY_SONAME};
static once_flag once = ONCE_FLAG_INIT;

#define MHD_LAZY_SYM(f) GT_LAZY_SYM(mhd_lazy, &lib, f)

static void load(void)
{
    if (gt_lazylib_open(&lib)) {
        MHD_LAZY_FUNCS(MHD_LAZY_SYM)
    }
}

int mhd_lazy_load(struct gt_error *err)
{
    call_once(&once, load);
    return gt_lazylib_status(&lib, err);
}
