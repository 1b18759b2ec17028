#include "trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

static const char header[] =
	"task_id\tname\ttag\tworker\tkind\tcores\tstorage_bw\tepoch\tstatus\t"
	"exit\tattempt\tsubmit\tstart\tcomplete\tqueue_s\trealtime_s\t"
	"cpu_user_s\tcpu_sys_s\tpeak_rss_kb\tread_bytes\twrite_bytes\tstage_in_s\t"
	"stage_out_s\tbytes_staged\n";

int
trace_open(struct trace *t, const char *path, struct errbuf *err)
{
	t->path = xstrdup(path);
	char *dir = path_dirname(path);
	if (mkdir_p(dir, 0777) < 0) {
		errprintf(err, "cannot create %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	t->fp = fopen(path, "we");
	if (!t->fp)
		return errprintf(err, "cannot write the trace %s: %s", path,
				 strerror(errno));
	fputs(header, t->fp);
	fflush(t->fp);
	return 0;
}

/* Tabs and newlines in a value would break the TSV. */
static void
put_field(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

void
trace_write(struct trace *t, const struct trace_row *r)
{
	FILE *fp = t->fp;
	if (!fp)
		return;
	fprintf(fp, "%lu\t", r->task_id);
	put_field(fp, r->name);
	fputc('\t', fp);
	put_field(fp, r->tag);
	fprintf(fp, "\t%s\t%s\t%ld\t", r->worker, r->kind, r->cores);
	if (r->storage_bw > 0)
		fprintf(fp, "%g", r->storage_bw);
	fputc('\t', fp);
	if (r->epoch > 0)
		fprintf(fp, "%d", r->epoch);
	fprintf(fp, "\t%s\t", r->status);
	if (r->exit_code >= 0)
		fprintf(fp, "%d", r->exit_code);
	fprintf(fp, "\t%d\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t", r->attempt,
		r->submit, r->start, r->complete, r->start - r->submit,
		r->complete - r->start);
	if (r->cpu_user >= 0)
		fprintf(fp, "%.6f\t%.6f", r->cpu_user, r->cpu_sys);
	else
		fputc('\t', fp);
	fputc('\t', fp);
	if (r->peak_rss_kb >= 0)
		fprintf(fp, "%ld", r->peak_rss_kb);
	fputc('\t', fp);
	if (r->read_bytes >= 0)
		fprintf(fp, "%lld", r->read_bytes);
	fputc('\t', fp);
	if (r->write_bytes >= 0)
		fprintf(fp, "%lld", r->write_bytes);
	fputc('\t', fp);
	if (r->stage_in_s >= 0)
		fprintf(fp, "%.6f", r->stage_in_s);
	fputc('\t', fp);
	if (r->stage_out_s >= 0)
		fprintf(fp, "%.6f", r->stage_out_s);
	fputc('\t', fp);
	if (r->bytes_staged >= 0)
		fprintf(fp, "%lld", r->bytes_staged);
	fputc('\n', fp);
	/* A row is on disk when its task is over, even if wfrun is killed. */
	fflush(fp);
}

int
trace_close(struct trace *t, struct errbuf *err)
{
	int r = 0;
	if (t->fp) {
		if (ferror(t->fp) | fclose(t->fp))
			r = errprintf(err, "error writing the trace %s", t->path);
	}
	t->fp = NULL;
	free(t->path);
	t->path = NULL;
	return r;
}
