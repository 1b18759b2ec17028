/*
 * exitcode: the exit statuses of wfrun(1), by name.  The runner returns
 * them and cmd/ exits with them; nothing writes the numbers themselves.
 */
#ifndef WFRUN_EXITCODE_H
#define WFRUN_EXITCODE_H

enum {
	EXIT_OK = 0,            /* every task succeeded */
	EXIT_TASK_FAILED = 1,   /* a task failed (after its retries) */
	EXIT_USAGE = 2,         /* usage, workflow or resources error */
	EXIT_UNREACHABLE = 3,   /* a worker could not be reached */
	EXIT_INTERRUPTED = 130, /* SIGINT or SIGTERM */
};

#endif
