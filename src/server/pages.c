/*
 * pages.c - GET / and the dashboard's other files, and the API's
 * description at /v1/openapi.json: the files compiled into the binary
 * (assets.h), answered with a strict Content-Security-Policy (server.c
 * adds it for every answer marked page).  They hold no data: no token
 * is needed for them.
 */
#include "endpoints.h"
#include "assets.h"

#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

struct gt_answer gt_serve_page(struct gt_req *r)
{
    const struct gt_asset *f = gt_asset_find(r->path);
    if (!f)   /* the route matched it: only a table out of step gets here */
        return gt_answer_fail(MHD_HTTP_NOT_FOUND, NULL, "no file %s", r->path);
    char *text = malloc(f->len + 1);
    if (!text)
        return gt_answer_fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "out of memory");
    memcpy(text, f->data, f->len + 1);
    struct gt_answer a = gt_answer_text(text, f->type);
    a.page = true;
    return a;
}
