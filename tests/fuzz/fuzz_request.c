/*
 * fuzz_request.c - the advisor endpoints' request path (gt_server_answer:
 * the body's cost, then parsing, validation and the advisor) on a real
 * store.  The first byte picks the endpoint.  Any answer but a crash, a
 * leak or a sanitizer report, always a JSON object.
 */
#include "fuzz.h"
#include "base/config.h"
#include "server/server.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    static const char *const paths[] = {"/v1/estimate", "/v1/rank", "/v1/place"};
    static struct gt_config cfg;
    static bool ready;
    if (!ready) {
        gt_config_defaults(&cfg);
        cfg.server_request_budget_s = 2;
        ready = true;
    }
    if (len == 0)
        return 0;
    struct gt_server_opts o = {fuzz_store(), &cfg, NULL, "127.0.0.1", 0, 1, 1, 1 << 20, 10,
                               NULL, NULL, NULL};
    json_t *doc = NULL;
    unsigned status = gt_server_answer(&o, "POST", paths[data[0] % 3], (const char *)data + 1,
                                       len - 1, &doc);
    if (!json_is_object(doc) || status < 200 || status > 599)
        abort();
    json_decref(doc);
    return 0;
}
