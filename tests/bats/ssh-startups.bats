#!/usr/bin/env bats
# Many workers on one host: wfrun limits the SSH handshakes in progress to
# one host:port, so sshd's MaxStartups (OpenSSH's default 10:30:100 drops
# connections beyond 10 unauthenticated ones) drops none of them.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/m"
	cluster_up "$C" --max-startups 10:30:100 1
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

setup() {
	cluster_setup
}

@test "30 workers on one sshd with MaxStartups 10:30:100: every one connects" {
	read -r n h p u k wd <"$C/hosts"
	{
		echo '<resources>'
		for i in $(seq 30); do
			echo "  <worker name=\"s$i\" host=\"$h\" port=\"$p\" user=\"$u\">"
			echo "    <cores>1</cores>"
			echo "    <workdir shared=\"true\">$wd</workdir>"
			echo "    <ssh identity=\"$k\" known-hosts=\"$C/known_hosts\"/>"
			echo "  </worker>"
		done
		echo '</resources>'
	} >many.xml
	wf <<'EOF2'
tasks:
  - name: t
    foreach: {i: "1..30"}
    out: {o: "o/{i}"}
    run: "sleep 1; touch {out.o}"
EOF2
	run "$WFRUN" -r many.xml wf.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *skipped* ]]
	[ "$(ls o | wc -l)" -eq 30 ]
}
