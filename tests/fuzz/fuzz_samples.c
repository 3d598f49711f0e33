/*
 * fuzz_samples.c - POST /v1/samples' body (gt_samples_push) into a real
 * store: CSV when the first byte is even, JSON otherwise.  Any answer
 * but a crash, a leak or a sanitizer report; the answer is always a JSON
 * object with a status the API documents.
 */
#include "fuzz.h"
#include "server/samples.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len == 0)
        return 0;
    const char *type = data[0] % 2 ? "application/json" : "text/csv";
    unsigned status = 0;
    json_t *a = gt_samples_push(fuzz_store(), 100, type, (const char *)data + 1, len - 1,
                                "fuzz", &status);
    if (!json_is_object(a) || (status != 200 && status != 400 && status != 503))
        abort();
    json_decref(a);
    return 0;
}
