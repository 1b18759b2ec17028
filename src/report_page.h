/*
 * report_page: the sections of the HTML report that report.c's
 * report_write_html puts together (private to the report module): the
 * header, the timeline (a canvas drawn from compact JSON), the failures,
 * the distributions per task name and the resource use over time; and
 * the formatting helpers report.c and they share.
 */
#ifndef WFRUN_REPORT_PAGE_H
#define WFRUN_REPORT_PAGE_H

#include <stdio.h>

#include "report.h"

/* The marker colour of a failed attempt, in no task name's colour. */
#define REPORT_FAIL_COLOUR "#d0021b"

void report_esc(FILE *fp, const char *s);
void report_fmt_secs(char *buf, size_t n, double s);
void report_fmt_bytes(char *buf, size_t n, double b);
double report_nice_step(double span, int n);
/* The colour of task name k, #rrggbb. */
void report_name_colour(char *buf, size_t n, size_t k);

void report_page_header(FILE *fp, const struct report *r);
void report_page_timeline(FILE *fp, const struct report *r);
void report_page_failures(FILE *fp, const struct report *r);
void report_page_dists(FILE *fp, const struct report *r);
void report_page_usage(FILE *fp, const struct report *r);

#endif
