/*
 * prefault.h - memory for large arrays that are about to be filled.
 *
 * A fresh page costs a fault on first touch; under virtualization that is
 * microseconds a page, and the advisor's memo of ~100,000 pair fits spent
 * more time faulting than filling.  On Linux these blocks are mapped with
 * MAP_POPULATE, so the kernel provides every page in one call; elsewhere
 * they are plain malloc.
 */
#ifndef GT_PREFAULT_H
#define GT_PREFAULT_H

#include <stddef.h>

/* NULL on ENOMEM.  Free with gt_prefault_free and the same size. */
void *gt_prefault_alloc(size_t bytes);
void gt_prefault_free(void *p, size_t bytes);

#endif
