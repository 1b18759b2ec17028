#!/usr/bin/env bats
# A worker that does not see the master's files: testcluster without
# --shared covers the master's directory with an empty tmpfs on workers.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/i"
	"$TESTCLUSTER" up -q 1 "$C"
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

@test "a 'shared' workdir that the worker cannot see: the worker is skipped, saying why" {
	read -r n h p u k wd <"$C/hosts"
	cat >"$C/claims-shared.xml" <<EOF2
<resources>
  <worker name="$n" host="$h" port="$p" user="$u">
    <workdir shared="true">$wd</workdir>
    <ssh identity="$k" known-hosts="$C/known_hosts"/>
  </worker>
</resources>
EOF2
	mkdir -p "$C/master/run"
	cd "$C/master/run"
	wf <<'EOF2'
tasks:
  - name: t
    out: {f: f}
    run: "touch {out.f}"
EOF2
	run "$WFRUN" -r "$C/claims-shared.xml" wf.yaml
	[ "$status" -eq 3 ]
	[[ "$output" == *"worker '$n' skipped: the workflow's workdir $C/master/run is not on $h: a shared workdir must be mounted at the same path on every worker"* ]]
	[ ! -e f ]
}
