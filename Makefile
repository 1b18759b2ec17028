# wfrun — plain Makefile.  `make` builds, `make check` runs every test,
# `make demo` runs an example workflow, `make deps` installs what is missing
# on Debian.  User CFLAGS are kept apart from the project's warning flags.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/wfrun
# where bash-completion and zsh look for completions
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions

CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config

WARN = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
       -Wmissing-prototypes -Wno-unused-parameter
DEPFLAGS = -MMD -MP
LIBS_CFLAGS := $(shell $(PKG_CONFIG) --cflags yaml-0.1 libxml-2.0 libssh2 2>/dev/null)
LIBS_LDLIBS := $(shell $(PKG_CONFIG) --libs yaml-0.1 libxml-2.0 libssh2 2>/dev/null || echo -lyaml -lxml2 -lssh2)

ifdef SANITIZE
SAN = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
BUILD = build-san
else
SAN =
BUILD = build
endif

ALL_CFLAGS = $(WARN) -D_GNU_SOURCE -iquote src $(LIBS_CFLAGS) $(SAN) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SAN) $(LDFLAGS)
LDLIBS_ALL = $(LIBS_LDLIBS) -lpthread -lm $(LDLIBS)

LIB_SRC = $(wildcard src/*.c)
LIB_OBJ = $(LIB_SRC:src/%.c=$(BUILD)/src/%.o) $(BUILD)/gen/xsd.o
CMD_SRC = cmd/wfrun.c cmd/cli.c cmd/cmd-run.c cmd/cmd-check.c cmd/cmd-dag.c \
	  cmd/cmd-sim.c cmd/cmd-probe.c cmd/cmd-report.c cmd/cmd-list.c cmd/cmd-log.c
CMD_OBJ = $(CMD_SRC:cmd/%.c=$(BUILD)/cmd/%.o)
UNIT_SRC = $(wildcard tests/unit/test-*.c)
# Example pipelines, installed in $(DATADIR)/workflows.
EXAMPLES = $(wildcard workflows/*.yaml)
EXAMPLE_SCRIPTS = $(wildcard workflows/data/*.sh)
EXAMPLE_DATA = $(wildcard workflows/data/*.awk workflows/data/*.tsv)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

ifdef SANITIZE
all: $(BUILD)/wfrun $(BUILD)/wfrun-worker
STATIC =
else
all: $(BUILD)/wfrun $(BUILD)/wfrun-worker wfrun wfrun-worker
# The agent is uploaded to workers: static, so it needs no shared libs there.
STATIC = -static
endif

# ./wfrun and ./wfrun-worker point at the optimised build (never the
# sanitizer one): the bench scripts take ../wfrun and the agent beside it.
wfrun: build/wfrun
	ln -sf build/wfrun wfrun

wfrun-worker: build/wfrun-worker
	ln -sf build/wfrun-worker wfrun-worker

# The archive is made anew (`ar rcs` into an old one would keep the object
# of a source file since deleted), and also when the list of its objects
# changes: OBJLIST rewrites the list only when it differs, so deleting a
# source file remakes the archive without it.
OBJLIST = @mkdir -p $(dir $@); echo '$(1)' | cmp -s - $@ || echo '$(1)' >$@

$(BUILD)/libwfrun.objs: FORCE
	$(call OBJLIST,$(LIB_OBJ))

$(BUILD)/libwfrun.a: $(LIB_OBJ) $(BUILD)/libwfrun.objs
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

$(BUILD)/wfrun: $(CMD_OBJ) $(BUILD)/libwfrun.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(CMD_OBJ) $(BUILD)/libwfrun.a $(LDLIBS_ALL)

# The schema is compiled in, so an uninstalled wfrun validates as an
# installed one does.
build/gen/xsd.c build-san/gen/xsd.c build-fuzz/gen/xsd.c: resources/wfrun-resources.xsd
	@mkdir -p $(dir $@)
	{ echo 'const char wfrun_resources_xsd[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $<; echo ';'; } >$@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(BUILD)/wfrun-worker: $(BUILD)/cmd/wfrun-worker.o $(BUILD)/libwfrun.a
	$(CC) $(ALL_LDFLAGS) $(STATIC) -o $@ $< $(BUILD)/libwfrun.a -lpthread

$(BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/cmd/%.o: cmd/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# (Their dependency files apart, out of the way of build/tests/test-*.)
$(BUILD)/tests/%: tests/unit/%.c tests/unit/tap.h $(BUILD)/libwfrun.a
	@mkdir -p $(dir $@) $(BUILD)/tests/deps
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -MF $(BUILD)/tests/deps/$*.d \
		-iquote tests/unit $(ALL_LDFLAGS) \
		-o $@ $< $(BUILD)/libwfrun.a $(LDLIBS_ALL)

units: $(UNIT_BIN)

# It runs the agent as a child process, from beside the test binaries.
$(BUILD)/tests/test-agent-pipe: $(BUILD)/wfrun-worker

# libFuzzer targets (tests/fuzz/README): clang with compiler-rt, ASan and
# UBSan.  `make fuzz` runs each for FUZZ_SECONDS on its seed corpus;
# `make check` runs the smoke mode (tests/fuzz/run --smoke) through
# tests/run-all.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
FUZZ_BUILD = build-fuzz
FUZZ_TARGETS = workflow resources proto agent
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	   -fno-omit-frame-pointer
FUZZ_CFLAGS = $(WARN) -D_GNU_SOURCE -iquote src $(LIBS_CFLAGS) $(CPPFLAGS) \
	      -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_OBJ = $(LIB_SRC:src/%.c=$(FUZZ_BUILD)/src/%.o) $(FUZZ_BUILD)/gen/xsd.o
FUZZ_BIN = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)

fuzz-build: $(FUZZ_BIN)

$(FUZZ_BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(FUZZ_BUILD)/gen/xsd.o: $(FUZZ_BUILD)/gen/xsd.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(FUZZ_BUILD)/libwfrun.objs: FORCE
	$(call OBJLIST,$(FUZZ_OBJ))

$(FUZZ_BUILD)/libwfrun.a: $(FUZZ_OBJ) $(FUZZ_BUILD)/libwfrun.objs
	rm -f $@
	$(AR) rcs $@ $(FUZZ_OBJ)

$(FUZZ_BUILD)/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_BUILD)/libwfrun.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_BUILD)/libwfrun.a $(LDLIBS_ALL)

# Each target FUZZ_SECONDS on its corpus, one after another, niced.
fuzz: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) \
		tests/fuzz/run $(FUZZ_TARGETS)

# Every test, unit and bats; the last line is "N passed, N failed".
# (A sub-make builds: pkg-config's answers above were taken before
# deps-check could install the libraries on a fresh machine.)
# Every test, with the optimised build and again with the ASan+UBSan one
# (one summary line for both).  The optimised build first, then
# tests/run-all runs its tests while the sanitizer and fuzz builds compile
# niced (LATE_BUILD); the tests of those wait for them.  Without -j, the
# builds take every core (CHECK_J).
NPROC := $(shell nproc 2>/dev/null || echo 1)
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
check: deps-check
	@$(MAKE) --no-print-directory $(CHECK_J) all units
	@BUILDS="build build-san" FUZZ_BUILD=$(FUZZ_BUILD) \
		LATE_BUILD='$(MAKE) --no-print-directory $(CHECK_J) SANITIZE=address,undefined all units && $(MAKE) --no-print-directory $(CHECK_J) fuzz-build' \
		tests/run-all

# The sanitizer build alone.
check-san: deps-check
	@$(MAKE) --no-print-directory SANITIZE=address,undefined all units fuzz-build
	@BUILDS=build-san FUZZ_BUILD=$(FUZZ_BUILD) tests/run-all

demo: deps-check
	@$(MAKE) --no-print-directory all
	./wfrun -j 2 workflows/checkpoint.yaml
	@echo "demo: outputs in workflows/out-checkpoint (trace: workflows/out-checkpoint/.wfrun/trace.tsv)"

# Install what is missing on Debian (needs root; does nothing if present).
deps:
	./.ci/install-deps

deps-check:
	@./.ci/install-deps --check-or-install

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man7
	install -m 755 $(BUILD)/wfrun $(DESTDIR)$(BINDIR)/wfrun
	install -m 755 $(BUILD)/wfrun-worker $(DESTDIR)$(BINDIR)/wfrun-worker
	install -m 644 man/wfrun.1 $(DESTDIR)$(MANDIR)/man1/wfrun.1
	install -m 644 man/wfrun-workflow.5 $(DESTDIR)$(MANDIR)/man5/wfrun-workflow.5
	install -m 644 man/wfrun-resources.5 $(DESTDIR)$(MANDIR)/man5/wfrun-resources.5
	install -m 644 man/wfrun-storage-bw.7 $(DESTDIR)$(MANDIR)/man7/wfrun-storage-bw.7
	install -d $(DESTDIR)$(DATADIR)
	install -m 644 resources/wfrun-resources.xsd $(DESTDIR)$(DATADIR)/wfrun-resources.xsd
	install -d $(DESTDIR)$(DATADIR)/workflows/data
	install -m 644 $(EXAMPLES) $(DESTDIR)$(DATADIR)/workflows/
	install -m 755 $(EXAMPLE_SCRIPTS) $(DESTDIR)$(DATADIR)/workflows/data/
	install -m 644 $(EXAMPLE_DATA) $(DESTDIR)$(DATADIR)/workflows/data/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 644 cmd/completion/wfrun.bash $(DESTDIR)$(BASHCOMPDIR)/wfrun
	install -m 644 cmd/completion/_wfrun $(DESTDIR)$(ZSHCOMPDIR)/_wfrun

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/wfrun $(DESTDIR)$(BINDIR)/wfrun-worker $(DESTDIR)$(MANDIR)/man1/wfrun.1 \
	      $(DESTDIR)$(MANDIR)/man5/wfrun-workflow.5 \
	      $(DESTDIR)$(MANDIR)/man5/wfrun-resources.5 \
	      $(DESTDIR)$(MANDIR)/man7/wfrun-storage-bw.7 \
	      $(DESTDIR)$(DATADIR)/wfrun-resources.xsd \
	      $(EXAMPLES:%=$(DESTDIR)$(DATADIR)/%) \
	      $(EXAMPLE_SCRIPTS:%=$(DESTDIR)$(DATADIR)/%) \
	      $(EXAMPLE_DATA:%=$(DESTDIR)$(DATADIR)/%) \
	      $(DESTDIR)$(BASHCOMPDIR)/wfrun $(DESTDIR)$(ZSHCOMPDIR)/_wfrun
	-rmdir $(DESTDIR)$(DATADIR)/workflows/data $(DESTDIR)$(DATADIR)/workflows \
	       $(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -rf build build-san $(FUZZ_BUILD) wfrun wfrun-worker

.PHONY: all units check check-san demo deps deps-check install uninstall clean \
	fuzz fuzz-build FORCE

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(BUILD)/cmd/wfrun-worker.d \
	 $(FUZZ_OBJ:.o=.d) \
	 $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/deps/%.d)
