/*
 * fuzz_config.c - the config file (gridtail.conf: read by every command,
 * and by serve on SIGHUP for its tokens): any text is loaded or refused
 * with a reason, and a loaded config's values are within their ranges.
 */
#include "fuzz.h"
#include "base/config.h"
#include "base/error.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    const char *path = fuzz_file("gridtail.conf", data, len);
    struct gt_config cfg;
    struct gt_error err = {0};
    gt_config_defaults(&cfg);
    int rc = gt_config_load(&cfg, path, &err);
    if (rc != GT_OK && !err.msg[0])
        abort();   /* refused without saying why */
    if (rc == GT_OK && (cfg.server_threads < 1 || cfg.server_threads > 1024 ||
                        cfg.server_max_buffered_mb < 1 || cfg.busy_timeout_ms < 0))
        abort();   /* a value past its documented range let through */
    gt_error_clear(&err);
    return 0;
}
