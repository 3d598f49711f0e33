/*
 * push.c - POST /v1/samples: what a remote collector pushes (write scope,
 * checked before the body was read), stored by samples.h and counted in
 * the server's metrics.
 *
 * Writes must not starve reads: a push waits [server] push_wait_ms for
 * the store's write lock (another writer, a long cron ingest), and at
 * most half the workers push at once; past either it is 503 and the
 * pusher keeps the samples in its spool.
 */
#include "endpoints.h"
#include "metrics.h"
#include "samples.h"

#include <microhttpd.h>
#include <stdio.h>

struct gt_answer gt_serve_push(struct gt_req *r)
{
    const struct gt_server_opts *o = r->o;
    if (!r->body)
        return gt_answer_fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "the body is larger than %zu "
                              "bytes: send the samples in parts", o->max_body);
    unsigned most = o->threads > 1 ? o->threads / 2 : 1;
    if (r->s && !gt_server_push_begin(r->s, most))
        return gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "%u pushes are being stored "
                              "already (at most half the workers push at once): try again "
                              "shortly", most);
    char name[128];
    snprintf(name, sizeof name, "POST /v1/samples from %s", r->client[0] ? r->client : "?");
    unsigned status;
    json_t *doc = gt_samples_push(o->db_path, o->cfg->server_push_wait_ms, r->content_type,
                                  r->body, r->len, name, &status);
    if (r->s)
        gt_server_push_end(r->s);
    if (!doc)
        return gt_answer_fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "out of memory");
    if (status == 200 && r->m)
        gt_metrics_pushed(r->m, json_integer_value(json_object_get(doc, "stored")),
                          json_integer_value(json_object_get(doc, "duplicates")),
                          json_integer_value(json_object_get(doc, "conflicts")),
                          json_integer_value(json_object_get(doc, "rejected")));
    return (struct gt_answer){.status = status, .doc = doc};
}
