/*
 * prefault.c - see prefault.h.
 */
#define _DEFAULT_SOURCE
#include "prefault.h"

#include <stdlib.h>
#include <sys/mman.h>

#ifdef MAP_POPULATE
void *gt_prefault_alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void gt_prefault_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}
#else
void *gt_prefault_alloc(size_t bytes)
{
    return malloc(bytes);
}

void gt_prefault_free(void *p, size_t bytes)
{
    (void)bytes;
    free(p);
}
#endif
