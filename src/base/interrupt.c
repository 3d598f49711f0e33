/*
 * interrupt.c - see interrupt.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
    caught = 1;
    signal(sig, SIG_DFL);   /* a second Ctrl-C ends the process */
}

void gt_interrupt_catch(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

bool gt_interrupted(void)
{
    return caught != 0;
}
