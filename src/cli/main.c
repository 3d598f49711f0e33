/*
 * main.c - the gridtail binary: everything else is in libgridtail.a.
 */
#include "cli.h"

int main(int argc, char **argv)
{
    return gt_cli_main(argc, argv);
}
