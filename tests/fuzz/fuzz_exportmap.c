/*
 * fuzz_exportmap.c - export-topology's --map file (SITE,ZONE[,REGION] or
 * SITE,RSE lines): any text is loaded or refused with a reason, and a
 * loaded map holds only names its format allows, a site in one zone, an
 * RSE at one site.  The first byte picks the format.
 */
#include "fuzz.h"
#include "advisor/exports.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

static void check_loaded(const struct gt_export_map *m, enum gt_export_format fmt)
{
    for (size_t i = 0; i < m->n; i++) {
        const struct gt_export_entry *e = &m->v[i];
        bool ok = fmt == GT_EXPORT_RUCIO ? gt_export_rse_name(e->name) && !e->region
                                         : gt_export_label_value(e->name) &&
                                               (!e->region || gt_export_label_value(e->region));
        if (!ok || (e->region != NULL) != m->regions)
            abort();   /* a name the format refuses, let through */
        for (size_t j = 0; j < i; j++)
            if (fmt == GT_EXPORT_RUCIO ? !strcmp(m->v[j].name, e->name)
                                       : !strcmp(m->v[j].site, e->site))
                abort();   /* an RSE at two sites, a site in two zones */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len < 1)
        return 0;
    enum gt_export_format fmt = data[0] & 1 ? GT_EXPORT_RUCIO : GT_EXPORT_NETWORKTOPOLOGY;
    const char *path = fuzz_file("sites.map", data + 1, len - 1);
    struct gt_export_map m;
    struct gt_error err = {0};
    int rc = gt_export_map_load(path, fmt, &m, &err);
    if (rc != GT_OK && !err.msg[0])
        abort();   /* refused without saying why */
    if (rc == GT_OK) {
        if (!m.n)
            abort();
        check_loaded(&m, fmt);
        gt_export_map_free(&m);
    }
    return 0;
}
