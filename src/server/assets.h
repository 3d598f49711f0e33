/*
 * assets.h - the dashboard's files (src/server/dashboard/) and the API's
 * description (docs/openapi.json, at /v1/openapi.json), compiled into the
 * binary so that `gridtail serve` needs nothing beside it on an offline
 * head node.  The table is generated at build time
 * (scripts/embed.sh -> build/gen/assets.c).
 */
#ifndef GT_ASSETS_H
#define GT_ASSETS_H

#include <stddef.h>

struct gt_asset {
    const char *path;         /* as requested: "/", "/dashboard.js", ... */
    const char *type;         /* its Content-Type */
    const char *data;
    size_t len;
};

/* The asset served at path, or NULL. */
const struct gt_asset *gt_asset_find(const char *path);

#endif
