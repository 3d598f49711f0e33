/*
 * fuzz_push.c - what `ingest FORMAT FILE --push` sends: the input parsed
 * by its format into the pushed CSV body (gt_push_parse), and that body
 * as the server takes it.  The format is chosen by the first byte.  A
 * body the client wrote is never refused whole: the server judges its
 * records (200), or the store is busy (503).
 */
#include "fuzz.h"
#include "collectors/push.h"
#include "server/samples.h"

#include <stdlib.h>

static void ignore(void *ctx, const char *loc, const char *msg)
{
    (void)ctx, (void)loc, (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    /* prometheus twice: blackbox's series, then smokeping's histograms */
    static const char *const formats[] = {"csv", "amp-csv", "amp-json", "esmond", "matrix",
                                          "atlas", "pscheduler", "prometheus", "prometheus"};
    if (len == 0)
        return 0;
    unsigned pick = data[0] % 9;
    const struct gt_collector *format = gt_collector_find(formats[pick]);
    const char *path = fuzz_file("input", data + 1, len - 1);
    struct gt_collect_opts c = {.src = "x", .dst = "y", .max_input_bytes = 1 << 20,
                                .site_prefix = "m", .start = 1795305600, .start_set = true,
                                .interval = 60, .interval_set = true, .slice = 1,
                                .histogram = pick == 8};
    struct gt_push_batch b;
    struct gt_error err = {0};
    int rc = gt_push_parse(format, path, &c, 1 << 22, &b, ignore, NULL, &err);
    if (rc == GT_OK) {
        unsigned status = 0;
        json_t *a = gt_samples_push(fuzz_store(), 100, "text/csv", b.csv.data, b.csv.len,
                                    "fuzz", &status);
        if (!json_is_object(a) || (status != 200 && status != 503))
            abort();
        json_decref(a);
    }
    gt_push_batch_free(&b);
    gt_error_clear(&err);
    return 0;
}
