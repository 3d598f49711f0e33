/*
 * interrupt.h - Ctrl-C (SIGINT) and SIGTERM as a request to stop cleanly:
 * long work (ingest, synth, refit) checks gt_interrupted() between records
 * and rolls back what it had not committed, then the command says what
 * was kept and what was rolled back and exits GT_EXIT_INTERRUPTED.  One
 * flag for the process, since signals are the process's.
 */
#ifndef GT_INTERRUPT_H
#define GT_INTERRUPT_H

#include <stdbool.h>

/* Catch SIGINT and SIGTERM from now on (a second one ends the process at
 * once, as the default would). */
void gt_interrupt_catch(void);

/* True once a caught signal has arrived. */
bool gt_interrupted(void);

#endif
