#!/usr/bin/env bats
# make install / uninstall with PREFIX and DESTDIR; the man pages lint
# clean and say what the commands do.
load helper

san() { [ "${BUILD:-build}" = build-san ] && echo SANITIZE=address,undefined; }

@test "make install puts everything under DESTDIR/PREFIX; uninstall removes it all" {
	local d="$BATS_TEST_TMPDIR/dest"
	run make -s -C "$WFRUN_TOP" $(san) install DESTDIR="$d" PREFIX=/opt/wf
	[ "$status" -eq 0 ]
	[ -x "$d/opt/wf/bin/wfrun" ]
	[ -x "$d/opt/wf/bin/wfrun-worker" ]
	[ -f "$d/opt/wf/share/man/man1/wfrun.1" ]
	[ -f "$d/opt/wf/share/man/man5/wfrun-workflow.5" ]
	[ -f "$d/opt/wf/share/man/man5/wfrun-resources.5" ]
	[ -f "$d/opt/wf/share/man/man7/wfrun-storage-bw.7" ]
	[ -f "$d/opt/wf/share/wfrun/wfrun-resources.xsd" ]
	[ -f "$d/opt/wf/share/wfrun/workflows/hmmer.yaml" ]
	[ -x "$d/opt/wf/share/wfrun/workflows/data/make-points.sh" ]
	[ -f "$d/opt/wf/share/bash-completion/completions/wfrun" ]
	[ -f "$d/opt/wf/share/zsh/site-functions/_wfrun" ]
	# nothing outside DESTDIR/PREFIX
	[ "$(cd "$d" && ls)" = opt ]
	# the installed examples run from a copy: kmeans needs no extra tool
	cp -r "$d/opt/wf/share/wfrun/workflows" wf
	sed -i 's/^  points: .*/  points: 600/; s/^  iters: .*/  iters: 3/' wf/kmeans.yaml
	run "$d/opt/wf/bin/wfrun" -q wf/kmeans.yaml
	[ "$status" -eq 0 ]
	[ -s wf/out-kmeans/result.txt ]
	run make -s -C "$WFRUN_TOP" $(san) uninstall DESTDIR="$d" PREFIX=/opt/wf
	[ "$status" -eq 0 ]
	[ -z "$(find "$d" -type f)" ]
}

@test "the man pages are mandoc -Tlint clean and have the standard sections" {
	command -v mandoc >/dev/null || { echo "mandoc is not installed: apt-get install -y mandoc" >&2; return 1; }
	local sections
	for m in "$WFRUN_TOP"/man/*.[157]; do
		run mandoc -Tlint "$m"
		[ "$status" -eq 0 ] || { echo "$m: $output" >&2; return 1; }
		[ -z "$output" ]
		# an overview page (section 7) has no synopsis or exit status
		case $m in
		*.7) sections=(NAME DESCRIPTION FILES "SEE ALSO") ;;
		*) sections=(NAME SYNOPSIS DESCRIPTION "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO") ;;
		esac
		for s in "${sections[@]}"; do
			grep -q "^\.SH \"\?$s\"\?$" "$m" || { echo "$m: no $s" >&2; return 1; }
		done
	done
	# every subcommand and option in --help is in wfrun(1)
	for w in report dag check --format --output --events --names; do
		grep -q -- "$(sed 's/-/\\\\-/g' <<<"$w")" "$WFRUN_TOP/man/wfrun.1" || { echo "wfrun.1 lacks $w" >&2; return 1; }
	done
}
