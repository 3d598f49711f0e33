/*
 * common.c - see fuzz.h.
 */
#define _DEFAULT_SOURCE
#include "fuzz.h"
#include "base/error.h"
#include "collectors/collector.h"
#include "db/db.h"
#include "db/ingest.h"
#include "db/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static void remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: could not remove %s\n", dir);
}

const char *fuzz_dir(void)
{
    if (!dir[0]) {
        /* in memory where there is /dev/shm: the store is written on
           every input, and a disk's fsyncs would be most of the time */
        snprintf(dir, sizeof dir, "%s/gt-fuzz-XXXXXX",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        if (!mkdtemp(dir))
            abort();
        atexit(remove_dir);
    }
    return dir;
}

const char *fuzz_file(const char *name, const uint8_t *data, size_t len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len)
        abort();
    fclose(f);
    return path;
}

const char *fuzz_store(void)
{
    static char path[512];
    if (path[0])
        return path;
    char csv[512];
    snprintf(path, sizeof path, "%s/store.db", fuzz_dir());
    snprintf(csv, sizeof csv, "%s/seed.csv", fuzz_dir());
    FILE *f = fopen(csv, "w");
    if (!f)
        abort();
    fprintf(f, "ts,src,dst,rtt_ms\n");
    for (int t = 0; t < 60; t++)
        fprintf(f, "%d,a,b,%d\n%d,a,c,20\n%d,p,q,%d\n", 1795305600 + 60 * t, 10 + t % 3,
                1795305600 + 60 * t, 1795305600 + 60 * t, 12 + t % 17);
    fclose(f);
    struct gt_db *db;
    struct gt_store *st;
    struct gt_error err = {0};
    struct gt_ingest_opts o = {0};
    struct gt_ingest_result res;
    o.format = gt_collector_find("csv");
    if (gt_db_open(path, GT_DB_CREATE, 1000, &db, &err) || gt_store_open(db, &st, &err) ||
        gt_ingest_input(db, st, csv, &o, &res))
        abort();
    gt_store_free(st);
    gt_db_close(db);
    return path;
}
