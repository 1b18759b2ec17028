/* Unit tests of the progress line's text and its plain-line policy. */
#include <stdlib.h>

#include "progress.h"
#include "tap.h"
#include "util.h"

int
main(void)
{
	struct progress p;
	char buf[256];
	log_level = 1;
	progress_init(&p, stderr, false, 10, NULL);
	progress_format(&p, p.t0, false, buf, sizeof(buf));
	is_str(buf, "[0/10] running 0 (cpu 0, io 0), failed 0, 0s",
	       "no ETA before anything ended");
	p.done = 4;
	p.failed = 1;
	p.run_cpu = 2;
	p.run_io = 3;
	progress_format(&p, p.t0 + 10, false, buf, sizeof(buf));
	is_str(buf, "[4/10] running 5 (cpu 2, io 3), failed 1, 10s, ETA 10s",
	       "ETA from the rate so far: 5 ended in 10s, 5 to go");
	progress_format(&p, p.t0 + 100, true, buf, sizeof(buf));
	is_str(buf, "[4/10] running 5 (cpu 2, io 3), \033[1;31mfailed 1\033[0m, "
	       "1m40s, ETA 1m40s", "failed in red with colour; minutes");
	p.failed = 0;
	progress_format(&p, p.t0 + 4 * 3600, true, buf, sizeof(buf));
	is_str(buf, "[4/10] running 5 (cpu 2, io 3), failed 0, 4h00m, ETA 6h00m",
	       "no colour when nothing failed; hours");
	p.done = 10;
	progress_format(&p, p.t0 + 5, false, buf, sizeof(buf));
	is_str(buf, "[10/10] running 5 (cpu 2, io 3), failed 0, 5s",
	       "no ETA when all ended");

	/* started/ended keep the running counts by kind */
	progress_init(&p, stderr, false, 3, NULL);
	progress_started(&p, false);
	progress_started(&p, true);
	progress_started(&p, true);
	progress_ended(&p, true, false);
	progress_lost(&p, false);
	ok(p.run_cpu == 0 && p.run_io == 1 && p.failed == 1 && p.done == 0,
	   "started, ended and lost update the counts");

	/* NO_COLOR is honoured on a terminal */
	setenv("TERM", "xterm", 1);
	setenv("NO_COLOR", "1", 1);
	progress_init(&p, stderr, true, 1, NULL);
	ok(!p.color, "NO_COLOR=1: no colour");
	setenv("NO_COLOR", "", 1);
	progress_init(&p, stderr, true, 1, NULL);
	ok(p.color, "NO_COLOR empty: colour on a terminal");
	progress_init(&p, stderr, false, 1, NULL);
	ok(!p.color, "never colour off a terminal");
	return done_testing();
}
