/*
 * lazylib.c - see lazylib.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "lazylib.h"

#include <dlfcn.h>
#include <stdio.h>

/* The first failure's dlerror() text ("<name> not found" should dlerror
 * have none to give). */
static void keep_error(struct gt_lazylib *lib, const char *name)
{
    if (lib->why[0])
        return;
    const char *e = dlerror();
    if (e)
        snprintf(lib->why, sizeof lib->why, "%s", e);
    else
        snprintf(lib->why, sizeof lib->why, "%s not found", name);
}

bool gt_lazylib_open(struct gt_lazylib *lib)
{
    lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle)
        keep_error(lib, lib->soname);
    return lib->handle != NULL;
}

gt_lazyfn gt_lazylib_sym(struct gt_lazylib *lib, const char *name)
{
    dlerror();   /* a symbol may be NULL without an error: clear first */
    void *p = dlsym(lib->handle, name);
    if (!p)
        keep_error(lib, name);
    /* POSIX makes this conversion work (dlsym returns functions as void *) */
    return (gt_lazyfn)p;
}

int gt_lazylib_status(const struct gt_lazylib *lib, struct gt_error *err)
{
    if (!lib->why[0])
        return GT_OK;
    return gt_error_set(err, GT_EIO, NULL, "%s cannot be loaded: %s", lib->soname, lib->why);
}
