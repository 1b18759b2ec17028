#!/usr/bin/env python3
"""wfgen: random workflows for the property test, and their reference.

A seed gives one workflow: a random program of shell tasks over in, out
and inout files, directory collections and list collections, with
foreach where it is natural (scatter, an inout chain in program order, a
glob over the inputs), tasks that append, copy, concatenate and list, a
few that sleep between two writes (so that a kill lands inside them),
and per task a retries count and an on_failure policy.

The generator also keeps the instances in program order, each with its
command as wfrun renders it (every path is made of safe characters, so
no value is quoted) and the paths it writes.  `reference` runs those
commands one at a time by plain /bin/sh in a scratch directory: the
files that COMPSs semantics (and wfrun-workflow(5), DATA FLOW) say the
workflow makes.  Nothing of wfrun takes part in it.

Failure injection is in every command and off unless PROP_FAIL names a
directory: an instance whose token file PROP_FAIL/ID holds a count above
0 decrements it, writes JUNK into everything it writes (after its real
work), and exits 3.  The reference never sets PROP_FAIL.

    wfgen.py gen SEED DIR   write DIR/wf.yaml and the inputs of the seed
    wfgen.py ref SEED DIR   run the reference in DIR (created)
    wfgen.py ids SEED       print the instance IDs, one a line
    wfgen.py kinds SEED     print what each task does, one a line
"""

import os
import random
import re
import shutil
import subprocess
import sys

FAIL_SNIPPET = (
    'if [ -n "$PROP_FAIL" ] && [ -s "$PROP_FAIL"/{id} ]; then\n'
    '  n=$(cat "$PROP_FAIL"/{id}); echo $((n - 1)) >"$PROP_FAIL"/{id}\n'
    '  if [ "$n" -gt 0 ]; then {junk} exit 3; fi\n'
    'fi\n'
)


def render(template, values):
    """Expand {name} placeholders as wfrun does for safe values."""
    def sub(m):
        return values[m.group(1)]
    return re.sub(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}", sub, template)


class Instance:
    def __init__(self, ident, cmd, outs, out_dirs, retries):
        self.id = ident          # the token name, e.g. t3_2
        self.cmd = cmd           # the command as wfrun renders it
        self.outs = outs         # out files (their parents are made)
        self.out_dirs = out_dirs  # out directory collections (made)
        self.retries = retries    # its task's retries


class Workflow:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        self.inputs = {}       # initial file -> content
        self.files = []        # plain files that exist at this point
        self.dirs = {}         # directory collection -> entry names
        self.families = []     # (prefix, n): files prefix1..prefixn
        self.tasks = []        # YAML text of each task
        self.kinds = []        # what each task does (append, copy, ...)
        self.instances = []
        self.nfile = 0
        self.make()

    # -- names -----------------------------------------------------------
    def new_file(self):
        self.nfile += 1
        sub = self.r.choice(["", "", "o/", "o/p/"])
        return "%sf%d" % (sub, self.nfile)

    def pick_file(self):
        return self.r.choice(self.files)

    def add_file(self, path):
        if path not in self.files:
            self.files.append(path)

    # -- tasks -----------------------------------------------------------
    def task(self, kind, params, run, foreach=None, inst=None):
        """Add a task: params is [(mode, name, yaml_datum)], run the
        command template with placeholders, inst a list of (values, outs,
        out_dirs) per instance (values for foreach keys and parameters)."""
        name = "t%d" % (len(self.tasks) + 1)
        r = self.r
        lines = ["  - name: %s" % name]
        if foreach:
            lines.append("    foreach: {%s}" % foreach)
        for mode in ("in", "out", "inout"):
            ps = ["%s: %s" % (n, d) for m, n, d in params if m == mode]
            if ps:
                lines.append("    %s: {%s}" % (mode, ", ".join(ps)))
        policy = r.choice(["fail", "fail", "cancel_successors", "retry"])
        # at most one retry: each costs wfrun's 0.5 s back-off
        retries = r.choice([0, 0, 1]) if policy != "retry" else 1
        lines.append("    retries: %d" % retries)
        if policy != "fail":
            lines.append("    on_failure: %s" % policy)
        ident = name + "".join("_{%s}" % k for k in inst[0][0].get("_keys", []))
        writes = [w for w in inst[0][0].get("_writes", [])]
        junk = " ".join("echo JUNK >>%s;" % w for w in writes)
        # set -e: a step that fails (a file missing because wfrun ran
        # something too early) fails the instance, and the reference
        full = "set -e\n" + run.rstrip("\n") + "\n" + FAIL_SNIPPET.format(id=ident, junk=junk)
        lines.append("    run: |")
        lines.extend("      " + l for l in full.rstrip("\n").split("\n"))
        self.tasks.append("\n".join(lines))
        self.kinds.append(kind)
        for values, outs, out_dirs in inst:
            v = dict((k, x) for k, x in values.items() if not k.startswith("_"))
            self.instances.append(Instance(render(ident, v), render(full, v),
                                           outs, out_dirs, retries))
        return name

    def tag(self):
        return "t%d" % (len(self.tasks) + 1)

    def maybe_sleep(self):
        if self.r.random() < 0.3:
            return "sleep 0.0%d\n" % self.r.randint(2, 9)
        return ""

    def t_append(self):
        x = self.pick_file()
        params = [("inout", "x", x)]
        vals = {"inout.x": x, "_writes": ["{inout.x}"]}
        run = "echo %s:a >>{inout.x}\n" % self.tag()
        if self.r.random() < 0.6:
            y = self.pick_file()
            if y != x:
                params.append(("in", "y", y))
                vals["in.y"] = y
                run += self.maybe_sleep() + "cat {in.y} >>{inout.x}\n"
        self.task("append", params, run, inst=[(vals, [], [])])

    def t_copy(self, fresh=False):
        y = self.pick_file()
        # out over a file a task made (a new version of it); not over a
        # workflow input: see RESULTS.md §property for why
        made = [f for f in self.files if f not in self.inputs]
        z = self.new_file()
        if made and not fresh and self.r.random() < 0.3:
            z = self.r.choice(made)
            if z == y:
                z = self.new_file()
        run = ("echo %s:c >{out.z}\n" % self.tag() + self.maybe_sleep()
               + "cat {in.y} >>{out.z}\n")
        vals = {"in.y": y, "out.z": z, "_writes": ["{out.z}"]}
        self.task("copy", [("in", "y", y), ("out", "z", z)], run,
                  inst=[(vals, [z], [])])
        self.add_file(z)

    def t_concat(self):
        n = self.r.randint(1, 4)
        src = [self.pick_file() for _ in range(n)]
        z = self.new_file()
        datum = '{list: "{p}", foreach: {p: [%s]}}' % ", ".join(src)
        if len(set(src)) != len(src):   # an element named twice: no
            src = list(dict.fromkeys(src))
            datum = '{list: "{p}", foreach: {p: [%s]}}' % ", ".join(src)
        vals = {"in.l": " ".join(src), "out.z": z, "_writes": ["{out.z}"]}
        run = "cat {in.l} >{out.z}\n"
        self.task("concat", [("in", "l", datum), ("out", "z", z)], run,
                  inst=[(vals, [z], [])])
        self.add_file(z)

    def t_scatter(self):
        y = self.pick_file()
        n = self.r.randint(2, 5)
        prefix = "s%d_" % (len(self.tasks) + 1)
        inst = []
        for i in range(1, n + 1):
            o = "%s%d" % (prefix, i)
            inst.append(({"i": str(i), "in.y": y, "out.o": o, "_keys": ["i"],
                          "_writes": ["{out.o}"]}, [o], []))
        run = ("echo %s:{i} >{out.o}\n" % self.tag() + self.maybe_sleep()
               + "cat {in.y} >>{out.o}\n")
        self.task("scatter", [("in", "y", y), ("out", "o", '"%s{i}"' % prefix)],
                  run, foreach='i: "1..%d"' % n, inst=inst)
        self.families.append((prefix, n))
        for i in range(1, n + 1):
            self.add_file("%s%d" % (prefix, i))

    def t_gather(self):
        if not self.families:
            return self.t_concat()
        prefix, n = self.r.choice(self.families)
        datum = '{list: "%s{j}", foreach: {j: "1..%d"}}' % (prefix, n)
        elems = " ".join("%s%d" % (prefix, j) for j in range(1, n + 1))
        if self.r.random() < 0.5:
            z = self.new_file()
            vals = {"in.l": elems, "out.z": z, "_writes": ["{out.z}"]}
            self.task("gather", [("in", "l", datum), ("out", "z", z)],
                      "cat {in.l} >{out.z}\n", inst=[(vals, [z], [])])
            self.add_file(z)
        else:
            x = self.pick_file()
            if x.startswith(prefix):
                return self.t_append()
            vals = {"in.l": elems, "inout.x": x, "_writes": ["{inout.x}"]}
            self.task("gather", [("in", "l", datum), ("inout", "x", x)],
                      "cat {in.l} >>{inout.x}\n", inst=[(vals, [], [])])

    def t_chain(self):
        """foreach over a family, each instance appending to one file:
        the instances run one after another, in program order."""
        x = self.pick_file()
        if self.families and self.r.random() < 0.7:
            prefix, n = self.r.choice(self.families)
            if x.startswith(prefix):
                x = self.new_file_existing()
            inst = [({"i": str(i), "in.s": "%s%d" % (prefix, i), "inout.x": x,
                      "_keys": ["i"], "_writes": ["{inout.x}"]}, [], [])
                    for i in range(1, n + 1)]
            params = [("in", "s", '"%s{i}"' % prefix), ("inout", "x", x)]
            run = ("echo %s:{i} >>{inout.x}\n" % self.tag() + self.maybe_sleep()
                   + "cat {in.s} >>{inout.x}\n")
        else:
            n = self.r.randint(2, 4)
            inst = [({"i": str(i), "inout.x": x, "_keys": ["i"],
                      "_writes": ["{inout.x}"]}, [], [])
                    for i in range(1, n + 1)]
            params = [("inout", "x", x)]
            run = ("echo %s:{i}:1 >>{inout.x}\n" % self.tag() + self.maybe_sleep()
                   + "echo %s:{i}:2 >>{inout.x}\n" % self.tag())
        self.task("chain", params, run, foreach='i: "1..%d"' % len(inst),
                  inst=inst)

    def new_file_existing(self):
        """A fresh file made by a copy task, for a chain to update."""
        self.t_copy(fresh=True)
        return self.files[-1]

    def t_mkdir(self):
        d = "d%d" % (len(self.tasks) + 1)
        y = self.pick_file()
        names = ["a", "b", "c"][: self.r.randint(1, 3)]
        run = ("for e in %s; do echo %s:$e >{out.d}/$e; done\n"
               % (" ".join(names), self.tag()) + self.maybe_sleep()
               + "cat {in.y} >>{out.d}/%s\n" % names[0])
        vals = {"in.y": y, "out.d": d, "_writes": ["{out.d}/%s" % names[0]]}
        self.task("mkdir", [("in", "y", y), ("out", "d", "{dir: %s}" % d)],
                  run, inst=[(vals, [], [d])])
        self.dirs[d] = list(names)
        for e in names:
            self.add_file("%s/%s" % (d, e))

    def t_dirupdate(self):
        if not self.dirs:
            return self.t_mkdir()
        d = self.r.choice(sorted(self.dirs))
        e = self.r.choice(self.dirs[d])
        new = "n%d" % (len(self.tasks) + 1)
        run = ("echo %s:u >>{inout.d}/%s\n" % (self.tag(), e) + self.maybe_sleep()
               + "echo %s:n >{inout.d}/%s\n" % (self.tag(), new))
        vals = {"inout.d": d, "_writes": ["{inout.d}/%s" % e]}
        self.task("dirupdate", [("inout", "d", "{dir: %s}" % d)], run,
                  inst=[(vals, [], [])])
        self.dirs[d].append(new)
        self.add_file("%s/%s" % (d, new))

    def t_dirread(self):
        if not self.dirs:
            return self.t_mkdir()
        d = self.r.choice(sorted(self.dirs))
        z = self.new_file()
        run = 'for e in {in.d}/*; do echo "$e"; cat "$e"; done >{out.z}\n'
        vals = {"in.d": d, "out.z": z, "_writes": ["{out.z}"]}
        self.task("dirread", [("in", "d", "{dir: %s}" % d), ("out", "z", z)],
                  run, inst=[(vals, [z], [])])
        self.add_file(z)

    def t_glob(self):
        """foreach over a glob of the inputs (no task writes in*)."""
        prefix = "g%d_" % (len(self.tasks) + 1)
        inst = []
        for s in sorted(self.inputs):
            o = prefix + s
            inst.append(({"g": s, "in.i": s, "out.o": o, "_keys": ["g"],
                          "_writes": ["{out.o}"]}, [o], []))
        run = "echo %s:{g} >{out.o}\ncat {in.i} >>{out.o}\n" % self.tag()
        self.task("glob", [("in", "i", '"{g}"'), ("out", "o", '"%s{g}"' % prefix)],
                  run, foreach='g: {glob: "in*"}', inst=inst)
        for s in sorted(self.inputs):
            self.add_file(prefix + s)

    def make(self):
        r = self.r
        for k in range(1, r.randint(2, 4) + 1):
            lines = ["seed %d input %d line %d" % (self.seed, k, j)
                     for j in range(r.randint(1, 3))]
            self.inputs["in%d" % k] = "\n".join(lines) + "\n"
            self.files.append("in%d" % k)
        kinds = [self.t_append, self.t_append, self.t_copy, self.t_copy,
                 self.t_concat, self.t_scatter, self.t_gather, self.t_chain,
                 self.t_mkdir, self.t_dirupdate, self.t_dirread, self.t_glob]
        for _ in range(r.randint(6, 14)):
            r.choice(kinds)()

    # -- output ----------------------------------------------------------
    def yaml(self):
        return ("# property test workflow, seed %d (tests/property/wfgen.py)\n"
                "tasks:\n%s\n" % (self.seed, "\n".join(self.tasks)))

    def write(self, top):
        os.makedirs(top, exist_ok=True)
        with open(os.path.join(top, "wf.yaml"), "w") as f:
            f.write(self.yaml())
        for name, text in self.inputs.items():
            with open(os.path.join(top, name), "w") as f:
                f.write(text)


def reference(wf, top):
    """Run the instances in program order by /bin/sh in top."""
    wf.write(top)
    os.remove(os.path.join(top, "wf.yaml"))
    env = dict(os.environ)
    env.pop("PROP_FAIL", None)
    for ins in wf.instances:
        for o in ins.outs:
            parent = os.path.dirname(o)
            if parent:
                os.makedirs(os.path.join(top, parent), exist_ok=True)
        for d in ins.out_dirs:
            os.makedirs(os.path.join(top, d), exist_ok=True)
        rc = subprocess.call(["/bin/sh", "-c", ins.cmd], cwd=top, env=env,
                             stdin=subprocess.DEVNULL)
        if rc != 0:
            raise RuntimeError("seed %d: reference: %s exited %d"
                               % (wf.seed, ins.id, rc))


def main(argv):
    if len(argv) < 3 or argv[1] not in ("gen", "ref", "ids", "kinds"):
        sys.stderr.write(__doc__)
        return 2
    wf = Workflow(int(argv[2]))
    if argv[1] == "kinds":
        for k in wf.kinds:
            print(k)
    elif argv[1] == "ids":
        for ins in wf.instances:
            print(ins.id)
    elif argv[1] == "gen":
        wf.write(argv[3])
    else:
        shutil.rmtree(argv[3], ignore_errors=True)
        reference(wf, argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
