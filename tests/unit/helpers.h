/* Shared by the unit tests: write a workflow to a temporary file. */
#ifndef WFRUN_TEST_HELPERS_H
#define WFRUN_TEST_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char tmp_dirs[64][32];
static int ntmp_dirs;

static void
remove_tmp_dirs(void)
{
	for (int i = 0; i < ntmp_dirs; i++) {
		char cmd[2100];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dirs[i]);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", tmp_dirs[i]);
	}
}

/* Write text to a new file in a fresh temporary directory; returns its
 * path (static storage, valid until the next call). */
static const char *
write_tmp(const char *text)
{
	static char path[256];
	char dir[] = "/tmp/wfrun-unit-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(99);
	}
	if (!ntmp_dirs)
		atexit(remove_tmp_dirs);
	if (ntmp_dirs < 64)
		snprintf(tmp_dirs[ntmp_dirs++], sizeof(tmp_dirs[0]), "%s", dir);
	snprintf(path, sizeof(path), "%s/wf.yaml", dir);
	FILE *fp = fopen(path, "w");
	if (!fp) {
		perror(path);
		exit(99);
	}
	fputs(text, fp);
	fclose(fp);
	return path;
}

#endif
