/*
 * fuzz.h - what the libFuzzer targets of `make fuzz` share: a scratch
 * directory that lives as long as the process, and a small store in it.
 */
#ifndef GT_FUZZ_H
#define GT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The process's scratch directory (made on first use, removed at exit). */
const char *fuzz_dir(void);

/* A store in the scratch directory with a few pairs (a->b, a->c, p->q),
 * made once; its path. */
const char *fuzz_store(void);

/* data as a file in the scratch directory; its path. */
const char *fuzz_file(const char *name, const uint8_t *data, size_t len);

#endif
