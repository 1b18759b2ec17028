#!/usr/bin/env python3
"""check: the property test of wfrun (issue 18, "Nothing lost").

For each seed, wfgen.py makes a random workflow and its sequential
reference (the commands run one at a time in program order by /bin/sh).
Then wfrun runs the workflow in fresh directories, in each mode:

  j1      -j 1, no fault
  j4      -j 4, no fault
  fix     -j 4 (or -j 1), one to three instances fail every attempt
          (-k or not, at random): the run exits 1; the failures are
          fixed (their token files removed) and a rerun exits 0
  retry   -j 4, instances of tasks with retries fail fewer times than
          their retries: the run exits 0
  kill    -j 4, the master is killed with SIGKILL at a random moment of
          the run (once or twice), then a rerun exits 0

and after each the workdir (but for wf.yaml and .wfrun/) must be
byte-identical to the reference's: no file missing, extra or different,
so no inout applied twice or lost, and nothing a failed attempt wrote
(JUNK) left; and `wfrun -n` must have nothing left to run.

    check.py [-v] [--mode M[,M...]] SEED...     check those seeds
    check.py [-v] [--mode ...] --seeds A..B     check seeds A to B

WFRUN names the binary (default: build/wfrun of this tree).  Each
failing case prints one line "FAIL seed N mode M: why" and the command
that replays it; the exit status is 1 when any failed.  The kill moment
is drawn from the seed, as a fraction of the time a clean -j 4 run took,
so a replay kills at about the same point, not the same instruction.
"""

import fcntl
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import wfgen  # noqa: E402

MODES = ["j1", "j4", "fix", "retry", "kill"]
WFRUN = os.environ.get("WFRUN") or os.path.join(HERE, "..", "..", "build", "wfrun")
VERBOSE = False


class Failure(Exception):
    pass


def tree(top):
    """path -> ('d',) | ('f', bytes) | ('l', target), without wf.yaml
    and .wfrun at the top."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        rel = os.path.relpath(dirpath, top)
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d != ".wfrun"]
            filenames = [f for f in filenames if f != "wf.yaml"]
        for d in dirnames:
            p = os.path.normpath(os.path.join(rel, d))
            if os.path.islink(os.path.join(top, p)):
                out[p] = ("l", os.readlink(os.path.join(top, p)))
            else:
                out[p] = ("d",)
        for f in filenames:
            p = os.path.normpath(os.path.join(rel, f))
            full = os.path.join(top, p)
            if os.path.islink(full):
                out[p] = ("l", os.readlink(full))
            else:
                with open(full, "rb") as fh:
                    out[p] = ("f", fh.read())
    return out


def compare(ref, top):
    got = tree(top)
    why = []
    for p in sorted(set(ref) | set(got)):
        if p not in got:
            why.append("%s missing" % p)
        elif p not in ref:
            why.append("%s extra" % p)
        elif ref[p] != got[p]:
            if ref[p][0] == "f" and got[p][0] == "f":
                why.append("%s differs: reference %r, wfrun %r"
                           % (p, ref[p][1].decode(errors="replace"),
                              got[p][1].decode(errors="replace")))
            else:
                why.append("%s is %s, not %s" % (p, got[p][0], ref[p][0]))
    if why:
        raise Failure("; ".join(why[:3]) + (" (+%d more)" % (len(why) - 3)
                                            if len(why) > 3 else ""))


def wfrun(top, args, env=None):
    cmd = [WFRUN, "-q"] + args + [os.path.join(top, "wf.yaml")]
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=120)
    if VERBOSE:
        sys.stderr.write("# %s -> %d\n" % (" ".join(args), p.returncode))
    return p


def expect(p, rc, what):
    if p.returncode != rc:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        raise Failure("%s exited %d, not %d: %s" % (what, p.returncode, rc,
                                                    " | ".join(err[-4:])))


def nothing_left(top):
    p = wfrun(top, ["-n"])
    expect(p, 0, "wfrun -n after the run")
    left = [l for l in p.stdout.decode().splitlines() if l.startswith("# '")]
    if left:
        raise Failure("after a complete run, wfrun -n would run again: %s"
                      % ", ".join(left[:3]))


def wait_lock(top):
    """Wait until no process (a guardian of a killed master) holds the
    workdir's lock."""
    path = os.path.join(top, ".wfrun", "lock")
    if not os.path.exists(path):
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise Failure("the lock is still held 30 s after the kill")
                time.sleep(0.02)
    finally:
        os.close(fd)


def fresh(wf, scratch, mode):
    top = os.path.join(scratch, mode)
    wf.write(top)
    return top


def tokens(scratch, mode, counts):
    d = os.path.join(scratch, mode + ".fail")
    os.makedirs(d)
    for ident, n in counts.items():
        with open(os.path.join(d, ident), "w") as f:
            f.write("%d\n" % n)
    env = dict(os.environ)
    env["PROP_FAIL"] = d
    return d, env


def mode_plain(wf, scratch, ref, mode, rng):
    top = fresh(wf, scratch, mode)
    t0 = time.monotonic()
    expect(wfrun(top, ["-j", mode[1:]]), 0, "wfrun -j " + mode[1:])
    took = time.monotonic() - t0
    compare(ref, top)
    nothing_left(top)
    return took


def mode_fix(wf, scratch, ref, mode, rng):
    top = fresh(wf, scratch, mode)
    bad = rng.sample(wf.instances, min(len(wf.instances), rng.randint(1, 3)))
    d, env = tokens(scratch, mode, dict((i.id, 99) for i in bad))
    args = ["-j", rng.choice(["1", "4", "4"])] + (["-k"] if rng.random() < 0.5 else [])
    expect(wfrun(top, args, env), 1, "the run with %s failing (%s)"
           % (",".join(i.id for i in bad), " ".join(args)))
    shutil.rmtree(d)
    expect(wfrun(top, args), 0, "the rerun after fixing %s"
           % ",".join(i.id for i in bad))
    compare(ref, top)
    nothing_left(top)


def mode_retry(wf, scratch, ref, mode, rng):
    top = fresh(wf, scratch, mode)
    can = [i for i in wf.instances if i.retries > 0]
    bad = rng.sample(can, min(len(can), rng.randint(1, 3)))
    d, env = tokens(scratch, mode, dict((i.id, rng.randint(1, i.retries))
                                        for i in bad))
    expect(wfrun(top, ["-j", "4"], env), 0, "the run with %s failing then "
           "retried" % ",".join(i.id for i in bad))
    compare(ref, top)
    nothing_left(top)


def mode_kill(wf, scratch, ref, mode, rng, took):
    top = fresh(wf, scratch, mode)
    kills = rng.choice([1, 1, 2])
    for k in range(kills):
        delay = rng.random() * took
        p = subprocess.Popen([WFRUN, "-q", "-j", "4",
                              os.path.join(top, "wf.yaml")],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        if VERBOSE:
            sys.stderr.write("# kill %d after %.3f s (rc %d)\n"
                             % (k + 1, delay, p.returncode))
        wait_lock(top)
    expect(wfrun(top, ["-j", "4"]), 0, "the rerun after %d kill(s)" % kills)
    compare(ref, top)
    nothing_left(top)


def check_seed(seed, modes, scratch):
    """Run every mode of one seed; return the failures as lines."""
    fails = []
    wf = wfgen.Workflow(seed)
    rng = random.Random(seed * 7919 + 1)
    refdir = os.path.join(scratch, "ref")
    try:
        wfgen.reference(wf, refdir)
    except RuntimeError as e:
        return ["FAIL seed %d mode ref: %s" % (seed, e)]
    ref = tree(refdir)
    took = None
    for mode in MODES:
        # every mode draws from rng, so that one mode replays alone
        mrng = random.Random(rng.random())
        if mode not in modes and not (mode == "j4" and "kill" in modes):
            continue
        try:
            if mode in ("j1", "j4"):
                t = mode_plain(wf, scratch, ref, mode, mrng)
                if mode == "j4":
                    took = t
            elif mode == "fix":
                mode_fix(wf, scratch, ref, mode, mrng)
            elif mode == "retry":
                mode_retry(wf, scratch, ref, mode, mrng)
            else:
                mode_kill(wf, scratch, ref, mode, mrng, took or 1.0)
        except (Failure, subprocess.TimeoutExpired) as e:
            fails.append("FAIL seed %d mode %s: %s\n  replay: %s --mode %s %d"
                         % (seed, mode, e, sys.argv[0], mode, seed))
    return fails


def main(argv):
    global VERBOSE
    modes = list(MODES)
    seeds = []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "-v":
            VERBOSE = True
        elif a == "--mode":
            modes = args.pop(0).split(",")
            if not set(modes) <= set(MODES):
                sys.stderr.write("check.py: modes are %s\n" % ",".join(MODES))
                return 2
        elif a == "--seeds":
            lo, hi = args.pop(0).split("..")
            seeds.extend(range(int(lo), int(hi) + 1))
        else:
            seeds.append(int(a))
    if not seeds:
        sys.stderr.write(__doc__)
        return 2
    nfail = 0
    for seed in seeds:
        scratch = tempfile.mkdtemp(prefix="wfrun-prop-%d." % seed)
        fails = check_seed(seed, modes, scratch)
        for f in fails:
            print(f, flush=True)
        if fails:
            nfail += 1
            print("  (kept %s)" % scratch, flush=True)
        else:
            shutil.rmtree(scratch)
            if VERBOSE:
                print("ok seed %d" % seed, flush=True)
    print("%d seeds, %d failed (modes %s)" % (len(seeds), nfail, ",".join(modes)))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
