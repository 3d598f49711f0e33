/*
 * workers.c - see workers.h.
 */
#include "workers.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct gt_workers {
    pthread_mutex_t lock;
    pthread_cond_t ready;       /* a job was queued, or closing */
    struct gt_job *head, *tail;
    bool closing;
    bool joined;
    size_t n;
    pthread_t threads[];
};

static struct gt_job *next_job(struct gt_workers *w)
{
    pthread_mutex_lock(&w->lock);
    while (!w->head && !w->closing)
        pthread_cond_wait(&w->ready, &w->lock);
    struct gt_job *j = w->head;
    if (j && !(w->head = j->next))
        w->tail = NULL;
    pthread_mutex_unlock(&w->lock);
    return j;
}

static void *work(void *arg)
{
    struct gt_workers *w = arg;
    for (struct gt_job *j; (j = next_job(w));)
        j->run(j);   /* may free j's struct: not touched after */
    return NULL;
}

struct gt_workers *gt_workers_start(size_t n)
{
    if (n < 1 || n > 1024)
        return NULL;
    struct gt_workers *w = calloc(1, sizeof *w + n * sizeof w->threads[0]);
    if (!w)
        return NULL;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->ready, NULL);
    for (; w->n < n; w->n++)
        if (pthread_create(&w->threads[w->n], NULL, work, w)) {
            gt_workers_free(w);
            return NULL;
        }
    return w;
}

bool gt_workers_push(struct gt_workers *w, struct gt_job *job)
{
    job->next = NULL;
    pthread_mutex_lock(&w->lock);
    if (w->closing) {
        pthread_mutex_unlock(&w->lock);
        return false;
    }
    if (w->tail)
        w->tail->next = job;
    else
        w->head = job;
    w->tail = job;
    pthread_cond_signal(&w->ready);
    pthread_mutex_unlock(&w->lock);
    return true;
}

void gt_workers_stop(struct gt_workers *w)
{
    if (!w || w->joined)
        return;
    pthread_mutex_lock(&w->lock);
    w->closing = true;   /* the queue still empties: a worker ends on an empty one */
    pthread_cond_broadcast(&w->ready);
    pthread_mutex_unlock(&w->lock);
    for (size_t i = 0; i < w->n; i++)
        pthread_join(w->threads[i], NULL);
    w->joined = true;
}

void gt_workers_free(struct gt_workers *w)
{
    if (!w)
        return;
    gt_workers_stop(w);
    pthread_cond_destroy(&w->ready);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
