/*
 * jsonscan.h - what a JSON text would cost jansson to parse, learnt by
 * reading its bytes once and building nothing: where its first value
 * ends, its longest array or object, and an upper estimate of the memory
 * json_loadb would take.  Parsed, JSON grows 10 to 75 times (a 16 MiB
 * "[{},{},...]" is 1.8 GiB), so whatever parses a client's or an
 * archive's JSON asks the cost first and refuses past its limits.
 */
#ifndef GT_JSONSCAN_H
#define GT_JSONSCAN_H

#include <stdbool.h>
#include <stddef.h>

struct gt_json_cost {
    size_t end;        /* bytes up to the end of the first value */
    size_t values;     /* values (containers, scalars; keys not counted) */
    size_t longest;    /* elements or members of the largest container */
    size_t bytes;      /* upper estimate of json_loadb's allocations */
    bool complete;     /* the first value ends within the text */
};

/* The cost of the first value of p[0..len).  No validation: what is not
 * JSON costs what it seems to, and json_loadb says what is wrong. */
void gt_json_cost(const char *p, size_t len, struct gt_json_cost *c);

#endif
