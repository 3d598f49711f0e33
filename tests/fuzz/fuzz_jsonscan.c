/*
 * fuzz_jsonscan.c - the JSON cost estimate (base/jsonscan.h) against
 * jansson itself: wherever json_loadb parses a first value, the scan ends
 * where it ended and counts at least its longest container.  Texts with a
 * NUL byte are scanned but not compared: jansson takes a NUL for the end
 * of its input ("[ -2.51\0]" is [-2.51] to it), the scan reads on.
 */
#include "fuzz.h"
#include "base/jsonscan.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static size_t longest(const json_t *v)
{
    size_t most = json_is_array(v) ? json_array_size(v) : json_is_object(v) ? json_object_size(v)
                                                                            : 0;
    size_t i;
    const char *key;
    json_t *e;
    if (json_is_array(v))
        json_array_foreach(v, i, e) {
            size_t n = longest(e);
            most = n > most ? n : most;
        }
    if (json_is_object(v))
        json_object_foreach((json_t *)v, key, e) {
            size_t n = longest(e);
            most = n > most ? n : most;
        }
    return most;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    struct gt_json_cost c;
    gt_json_cost((const char *)data, len, &c);
    if (c.end > len)
        abort();
    if (memchr(data, 0, len))
        return 0;
    json_error_t je;
    json_t *doc = json_loadb((const char *)data, len, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY,
                             &je);
    if (doc) {
        /* jansson read the value and at most one byte past it; a
           container ends where its bracket closes, a scalar's run of
           bytes may be longer than jansson's number ("0e0e9") */
        size_t end = (size_t)je.position;
        bool container = json_is_array(doc) || json_is_object(doc);
        if (!c.complete || c.end + 1 < end || (container && c.end > end) ||
            c.longest < longest(doc))
            abort();
        json_decref(doc);
    }
    return 0;
}
