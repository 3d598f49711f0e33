/*
 * fuzz_thresholds.c - [thresholds] groups_file (GROUP KEY=VALUE lines,
 * read by pairs --status, serve and alerts): any text is loaded or
 * refused with a reason, and a loaded group's limits are within their
 * documented ranges.
 */
#include "fuzz.h"
#include "advisor/status.h"
#include "base/config.h"
#include "base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool in_range(const struct gt_limits *l)
{
    for (int k = 0; k < 2; k++)
        if (!(l->p99_ms[k] >= 0 && l->p99_ms[k] <= 1e7) ||
            !(l->median_ms[k] >= 0 && l->median_ms[k] <= 1e7) ||
            !(l->loss[k] >= 0 && l->loss[k] <= 1))
            return false;
    return l->silent_s >= 1 && l->silent_s <= 100000000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    struct gt_config cfg;
    gt_config_defaults(&cfg);
    const char *path = fuzz_file("groups", data, len);
    snprintf(cfg.th_groups_file, sizeof cfg.th_groups_file, "%s", path);
    struct gt_thresholds t;
    struct gt_error err = {0};
    int rc = gt_thresholds_load(&t, &cfg, 60, &err);
    if (rc != GT_OK && !err.msg[0])
        abort();   /* refused without saying why */
    if (rc == GT_OK) {
        for (size_t i = 0; i < t.ngroups; i++) {
            const struct gt_status_group *g = &t.groups[i];
            if (!in_range(&g->lim) || !g->name || (g->sites && !g->nsites))
                abort();   /* a limit past its range, or an empty site list, let through */
            for (size_t j = 0; j < i; j++)
                if (!strcmp(t.groups[j].name, g->name))
                    abort();   /* a group given twice */
        }
        gt_thresholds_free(&t);
    }
    return 0;
}
