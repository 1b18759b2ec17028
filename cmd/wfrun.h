/*
 * The subcommands of wfrun, which main() dispatches to; each returns the
 * exit status of wfrun(1).  What they share is in cli.h.
 */
#ifndef WFRUN_CMD_H
#define WFRUN_CMD_H

#include <stdbool.h>

#include "exitcode.h"

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_dag(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_log(int argc, char **argv);
/* wfrun list FILE (and run --list): the tasks; names: their names only,
 * one a line.  The exit status. */
int list_workflow(const char *file, bool names);

#endif
