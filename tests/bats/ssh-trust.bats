#!/usr/bin/env bats
# Issue 24: what neither side trusts.  The agent never removes or writes
# anything outside its workdir and store, whatever paths a task names;
# symbolic links in staged data; absolute outputs checked as locally.
# Two workers whose workdir is not shared (testcluster without --shared);
# most tests use the first alone.
load helper

setup_file() {
	export C="$BATS_FILE_TMPDIR/t"
	"$TESTCLUSTER" up -q 2 "$C" || return 1
	cluster_xml "$C" false
	# w1 alone
	sed '/<worker name="w2"/,/<\/worker>/d' "$C/cluster.xml" >"$C/w1.xml"
}

# Each test in a directory of the master's own, which workers cannot see;
# the first worker's host line in n h p u k WWD.
setup() {
	read -r n h p u k WWD <"$C/hosts"
	W="$C/master/t$BATS_TEST_NUMBER"
	mkdir -p "$W" && cd "$W" || exit 1
}

teardown_file() {
	"$TESTCLUSTER" down -q "$C"
}

# A workflow of one task writing f.
hi_wf() {
	printf '%s\n' 'tasks:' '  - name: t' '    out: {f: f}' \
		'    run: "echo hi > {out.f}"' >wf.yaml
}

@test "the agent deletes nothing outside its workdir: an out dir of ../../../../victim" {
	# the sandbox and the store are 4 levels under the worker's workdir:
	# outdir/../../../../victim is WWD/victim there
	mkdir -p "$WWD"
	echo precious >"$WWD/victim"
	wf <<'EOF2'
tasks:
  - name: t
    allow_outside: true
    out: {v: "../../../../victim"}
    run: "true"
EOF2
	run "$WFRUN" -q -r "$C/w1.xml" wf.yaml
	[ "$status" -ne 0 ]
	[ "$(cat "$WWD/victim")" = precious ]
	[[ "$output" == *"outside the sandbox"* ]]
}

@test "the agent moves nothing from outside: an output under a link a task made" {
	mkdir -p "$WWD/outside"
	wf <<EOF2
tasks:
  - name: t
    out: {f: "dd/x"}
    run: "rm -rf dd && ln -s $WWD/outside dd && echo mine > dd/x"
EOF2
	run "$WFRUN" -q -r "$C/w1.xml" wf.yaml
	[ "$status" -ne 0 ]
	[ "$(cat "$WWD/outside/x")" = mine ]
	[[ "$output" == *"did not create its output 'f' (dd/x)"* ]]
}

# known_hosts decided as ssh -o StrictHostKeyChecking=yes decides: each
# file below is judged by ssh and by wfrun, which must agree.  RIGHT is
# the worker's ed25519 host key, WRONG another.
@test "host keys: wfrun accepts exactly the known_hosts entries ssh accepts" {
	local right wrong hp="[$h]:$p" kh verdict ssh_ok wf_ok
	right=$(awk -v hp="$hp" '$1 == hp { print $2, $3; exit }' "$C/known_hosts")
	[ -n "$right" ]
	ssh-keygen -q -t ed25519 -N '' -f other </dev/null
	wrong=$(cut -d' ' -f1,2 other.pub)
	hashed() { # a hashed line for name $1 and key $2
		echo "$1 $2" >hk && ssh-keygen -q -H -f hk >/dev/null 2>&1 && cat hk
	}
	cases=(
		"plain:$h $right"
		"port:$hp $right"
		"wrong:$hp $wrong"
		"conflict:$hp $wrong
$h $right"
		"both:$hp $wrong
$hp $right"
		"hashed:$(hashed "$hp" "$right")"
		"hashed-plain:$(hashed "$h" "$right")"
		"hashed-wrong:$(hashed "$hp" "$wrong")"
		"wildcard:[127.0.0.?]:$p $right"
		"star:* $right"
		"negated:[127.0.0.*]:$p,![$h]:$p $right"
		"list:other.example,$hp $right"
		"revoked:@revoked $hp $right
$hp $right"
		"ca:@cert-authority $hp $right"
		"case:[127.0.0.1]:$p $right"
		"portless-wrong:$h $wrong
$hp $right"
	)
	hi_wf
	for c in "${cases[@]}"; do
		name=${c%%:*}
		printf '%s\n' "${c#*:}" >kh
		ssh_ok=no wf_ok=no
		if ssh -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$PWD/kh" \
			-o GlobalKnownHostsFile=/dev/null -o BatchMode=yes \
			-o IdentitiesOnly=yes -i "$k" -p "$p" "$u@$h" true </dev/null 2>/dev/null; then
			ssh_ok=yes
		fi
		sed "s|known-hosts=\"[^\"]*\"|known-hosts=\"$PWD/kh\"|" "$C/w1.xml" >r.xml
		rm -rf .wfrun f
		if "$WFRUN" -q -r r.xml wf.yaml >out 2>&1; then
			wf_ok=yes
		fi
		echo "$name: ssh $ssh_ok, wfrun $wf_ok"
		[ "$ssh_ok" = "$wf_ok" ]
	done
}

@test "a refused host key is an error with -q, and the exit status says so" {
	local hp="[$h]:$p" right
	right=$(awk -v hp="$hp" '$1 == hp { print $2, $3; exit }' "$C/known_hosts")
	ssh-keygen -q -t ed25519 -N '' -f other </dev/null
	# w1's key conflicts (as in issue 24); w2's is right
	{
		echo "$hp $(cut -d' ' -f1,2 other.pub)"
		echo "$h $right"
		grep -vF "$hp " "$C/known_hosts"
	} >kh
	sed "s|known-hosts=\"[^\"]*\"|known-hosts=\"$PWD/kh\"|" "$C/cluster.xml" >r.xml
	hi_wf
	run -3 "$WFRUN" -q -r r.xml wf.yaml
	[[ "$output" == *"error: worker 'w1' refused: the ssh-ed25519 host key of $hp (SHA256:"*") does NOT match the one in $PWD/kh (line 1)"* ]]
	[ "$(cat f)" = hi ]
}

@test "an absolute output a task did not create fails it, as locally" {
	abs="$WWD/abs-$BATS_TEST_NUMBER"
	rm -rf "$abs"
	mkdir -p "$abs"
	wf <<EOF2
tasks:
  - name: t
    allow_outside: true
    out: {f: "$abs/never.txt"}
    run: "true"
  - name: u
    allow_outside: true
    out: {f: "$abs/made.txt"}
    run: "echo made > {out.f}"
EOF2
	run -1 "$WFRUN" -q -r "$C/w1.xml" wf.yaml
	[[ "$output" == *"task 't' exited 0 but did not create its output 'f' ($abs/never.txt)"* ]]
	[ "$(cat "$abs/made.txt")" = made ]
	[ "$(trace_col status | sort | tr '\n' ' ')" = "COMPLETED FAILED " ]
	# the same locally
	rm -rf .wfrun "$abs/made.txt"
	run -1 "$WFRUN" -q wf.yaml
	[[ "$output" == *"task 't' exited 0 but did not create its output 'f' ($abs/never.txt)"* ]]
}

@test "a link in an input directory is never followed out of the workdir to a worker" {
	echo secret >"$BATS_TEST_TMPDIR/secret"
	mkdir -p data other
	echo one >data/one
	echo two >other/two
	ln -s ../other/two data/two
	wf <<'EOF2'
tasks:
  - name: t
    in: {d: {dir: data}}
    out: {f: list}
    run: "cat {in.d}/one {in.d}/two > {out.f}"
EOF2
	run "$WFRUN" -q -r "$C/w1.xml" wf.yaml
	[ "$status" -eq 0 ]
	[ "$(cat list)" = "one
two" ]
	ln -s "$BATS_TEST_TMPDIR/secret" data/s
	rm -rf .wfrun list
	run -1 "$WFRUN" -q -r "$C/w1.xml" wf.yaml
	[[ "$output" == *"cannot stage 'data/s': a symbolic link to $BATS_TEST_TMPDIR/secret, outside the workdir"* ]]
	[ -z "$(find "$WWD" -name s)" ]
	[ ! -e list ]
}
