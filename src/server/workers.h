/*
 * workers.h - a fixed set of threads that run queued jobs, first in first
 * out.
 *
 * The server answers the requests that read the store on these threads
 * rather than on the connection's own: libmicrohttpd gives each connection
 * to one of its threads for the connection's whole life, so a broker's
 * few kept-alive connections can all land on one thread and be answered
 * one at a time while the other cores idle.  Queued here, any free worker
 * takes the next request, whichever connection it came on.
 */
#ifndef GT_WORKERS_H
#define GT_WORKERS_H

#include <stdbool.h>
#include <stddef.h>

/* A job is embedded in the caller's own struct (no allocation per job). */
struct gt_job {
    struct gt_job *next;
    void (*run)(struct gt_job *job);
};

struct gt_workers;

/* n threads (1 ... 1024), or NULL when they cannot be made. */
struct gt_workers *gt_workers_start(size_t n);

/* Queue job for the next free worker; the job's struct must stay valid
 * until its run has returned.  False once gt_workers_stop has begun: the
 * job was not queued. */
bool gt_workers_push(struct gt_workers *w, struct gt_job *job);

/* Run every job queued so far, then end the threads; later pushes are
 * refused.  w stays valid until gt_workers_free. */
void gt_workers_stop(struct gt_workers *w);
void gt_workers_free(struct gt_workers *w);

#endif
