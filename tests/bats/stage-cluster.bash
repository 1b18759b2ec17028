# The 3 testcluster workers whose workdir is not shared that
# ssh-stage.bats and ssh-stage-preempt.bats run on (load stage-cluster,
# after helper): started once per file, each test in its own directory.

setup_file() {
	export C="$BATS_FILE_TMPDIR/s"
	cluster_start
}

# Start (or restart, after a test killed a worker) the 3 workers and write
# their resources file: a restart may move them to other ports.
cluster_start() {
	"$TESTCLUSTER" up -q 3 "$C" || return 1
	cluster_xml "$C" false
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

# Each test in its own directory under the master's dir, which the
# workers cannot see.
setup() {
	W="$C/master/t$BATS_TEST_NUMBER"
	mkdir -p "$W"
	cd "$W" || exit 1
}
