/*
 * curl_lazy.c - see curl_lazy.h.
 */
#include "curl_lazy.h"

#include <threads.h>

struct curl_lazy_table curl_lazy;

static struct gt_lazylib lib = {.soname = CURL_LAZY_SONAME};
static once_flag once = ONCE_FLAG_INIT;

#define CURL_LAZY_SYM(f) GT_LAZY_SYM(curl_lazy, &lib, f)

static void load(void)
{
    if (gt_lazylib_open(&lib)) {
        CURL_LAZY_FUNCS(CURL_LAZY_SYM)
    }
    /* not thread-safe itself: call_once runs it once, before any use */
    if (!lib.why[0])
        curl_global_init(CURL_GLOBAL_DEFAULT);
}

int curl_lazy_load(struct gt_error *err)
{
    call_once(&once, load);
    return gt_lazylib_status(&lib, err);
}
