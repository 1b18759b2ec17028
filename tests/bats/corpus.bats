#!/usr/bin/env bats
# The broken-file corpus: every tests/corpus/workflows/NAME.yaml is checked
# with `wfrun check NAME.yaml`, every tests/corpus/resources/NAME.xml with
# `wfrun check -r NAME.xml` (and a valid workflow), each in a directory of
# its own; NAME.err is the exact standard error (@WORKDIR@ stands for that
# directory) and NAME.rc the exit status.  One test per file; the last
# test fails when a corpus file has no test here or lacks its .err/.rc.
load helper
bats_require_minimum_version 1.5.0

CORPUS=$WFRUN_TOP/tests/corpus

corpus_check() { # corpus_check workflows/NAME.yaml
	local f=$CORPUS/$1 name=${1##*/}
	local base=${f%.*}
	mkdir w
	cd w || return 1
	cp "$f" .
	case $1 in
	workflows/*)
		run --separate-stderr "$WFRUN" check "$name" ;;
	resources/*)
		cp "$CORPUS/resources.workflow.yaml" wf.yaml
		run --separate-stderr "$WFRUN" check -r "$name" wf.yaml ;;
	esac
	local want
	want=$(sed "s|@WORKDIR@|$(pwd -P)|g" "$base.err")
	if [ "$stderr" != "$want" ]; then
		diff -u <(printf '%s\n' "$want") <(printf '%s\n' "$stderr") |
			sed 's/^/# /' >&3
		return 1
	fi
	[ "$status" -eq "$(cat "$base.rc")" ]
}

@test "corpus: every file has its test, its .err and its .rc" {
	local f missing=0
	for f in "$CORPUS"/workflows/*.yaml "$CORPUS"/resources/*.xml; do
		local rel=${f#"$CORPUS"/}
		if ! grep -qF "corpus_check $rel;" "$BATS_TEST_FILENAME"; then
			echo "# no test for $rel" >&3
			missing=1
		fi
		for ext in err rc; do
			if [ ! -f "${f%.*}.$ext" ]; then
				echo "# missing ${rel%.*}.$ext" >&3
				missing=1
			fi
		done
	done
	[ "$missing" -eq 0 ]
}

@test "corpus: workflows/alias-tasks.yaml" { corpus_check workflows/alias-tasks.yaml; }
@test "corpus: workflows/alias-undefined.yaml" { corpus_check workflows/alias-undefined.yaml; }
@test "corpus: workflows/bad-placeholders.yaml" { corpus_check workflows/bad-placeholders.yaml; }
@test "corpus: workflows/bad-values.yaml" { corpus_check workflows/bad-values.yaml; }
@test "corpus: workflows/billion-laughs.yaml" { corpus_check workflows/billion-laughs.yaml; }
@test "corpus: workflows/collection-misuse.yaml" { corpus_check workflows/collection-misuse.yaml; }
@test "corpus: workflows/collections-too-deep.yaml" { corpus_check workflows/collections-too-deep.yaml; }
@test "corpus: workflows/deep-block.yaml" { corpus_check workflows/deep-block.yaml; }
@test "corpus: workflows/deep-flow.yaml" { corpus_check workflows/deep-flow.yaml; }
@test "corpus: workflows/duplicates.yaml" { corpus_check workflows/duplicates.yaml; }
@test "corpus: workflows/empty-document.yaml" { corpus_check workflows/empty-document.yaml; }
@test "corpus: workflows/empty.yaml" { corpus_check workflows/empty.yaml; }
@test "corpus: workflows/escape-allow-bad.yaml" { corpus_check workflows/escape-allow-bad.yaml; }
@test "corpus: workflows/escape-allowed.yaml" { corpus_check workflows/escape-allowed.yaml; }
@test "corpus: workflows/escape-out.yaml" { corpus_check workflows/escape-out.yaml; }
@test "corpus: workflows/foreach-bad-bounds.yaml" { corpus_check workflows/foreach-bad-bounds.yaml; }
@test "corpus: workflows/foreach-edge-cases.yaml" { corpus_check workflows/foreach-edge-cases.yaml; }
@test "corpus: workflows/foreach-empty.yaml" { corpus_check workflows/foreach-empty.yaml; }
@test "corpus: workflows/foreach-huge-product.yaml" { corpus_check workflows/foreach-huge-product.yaml; }
@test "corpus: workflows/foreach-huge.yaml" { corpus_check workflows/foreach-huge.yaml; }
@test "corpus: workflows/invalid-utf8.yaml" { corpus_check workflows/invalid-utf8.yaml; }
@test "corpus: workflows/list-huge.yaml" { corpus_check workflows/list-huge.yaml; }
@test "corpus: workflows/not-a-mapping.yaml" { corpus_check workflows/not-a-mapping.yaml; }
@test "corpus: workflows/nul-byte.yaml" { corpus_check workflows/nul-byte.yaml; }
@test "corpus: workflows/only-comment.yaml" { corpus_check workflows/only-comment.yaml; }
@test "corpus: workflows/safe-elements.yaml" { corpus_check workflows/safe-elements.yaml; }
@test "corpus: workflows/syntax-bad-indent.yaml" { corpus_check workflows/syntax-bad-indent.yaml; }
@test "corpus: workflows/syntax-tab-indent.yaml" { corpus_check workflows/syntax-tab-indent.yaml; }
@test "corpus: workflows/syntax-unclosed-quote.yaml" { corpus_check workflows/syntax-unclosed-quote.yaml; }
@test "corpus: workflows/tasks-not-a-list.yaml" { corpus_check workflows/tasks-not-a-list.yaml; }
@test "corpus: workflows/two-documents.yaml" { corpus_check workflows/two-documents.yaml; }
@test "corpus: workflows/unknown-keys.yaml" { corpus_check workflows/unknown-keys.yaml; }
@test "corpus: workflows/unsafe-elements.yaml" { corpus_check workflows/unsafe-elements.yaml; }
@test "corpus: workflows/var-bomb.yaml" { corpus_check workflows/var-bomb.yaml; }
@test "corpus: workflows/var-cycles.yaml" { corpus_check workflows/var-cycles.yaml; }
@test "corpus: workflows/wrong-types.yaml" { corpus_check workflows/wrong-types.yaml; }
@test "corpus: resources/bad-names.xml" { corpus_check resources/bad-names.xml; }
@test "corpus: resources/bad-numbers.xml" { corpus_check resources/bad-numbers.xml; }
@test "corpus: resources/billion-laughs.xml" { corpus_check resources/billion-laughs.xml; }
@test "corpus: resources/deep-nesting.xml" { corpus_check resources/deep-nesting.xml; }
@test "corpus: resources/dtd-only.xml" { corpus_check resources/dtd-only.xml; }
@test "corpus: resources/duplicate-children.xml" { corpus_check resources/duplicate-children.xml; }
@test "corpus: resources/duplicate-names.xml" { corpus_check resources/duplicate-names.xml; }
@test "corpus: resources/empty.xml" { corpus_check resources/empty.xml; }
@test "corpus: resources/huge-counts.xml" { corpus_check resources/huge-counts.xml; }
@test "corpus: resources/huge-numbers.xml" { corpus_check resources/huge-numbers.xml; }
@test "corpus: resources/invalid-utf8.xml" { corpus_check resources/invalid-utf8.xml; }
@test "corpus: resources/no-workers.xml" { corpus_check resources/no-workers.xml; }
@test "corpus: resources/nul-byte.xml" { corpus_check resources/nul-byte.xml; }
@test "corpus: resources/relative-workdir.xml" { corpus_check resources/relative-workdir.xml; }
@test "corpus: resources/slurm-bad-values.xml" { corpus_check resources/slurm-bad-values.xml; }
@test "corpus: resources/storage-after-worker.xml" { corpus_check resources/storage-after-worker.xml; }
@test "corpus: resources/truncated.xml" { corpus_check resources/truncated.xml; }
@test "corpus: resources/undeclared-entity.xml" { corpus_check resources/undeclared-entity.xml; }
@test "corpus: resources/wrong-elements.xml" { corpus_check resources/wrong-elements.xml; }
@test "corpus: resources/wrong-root.xml" { corpus_check resources/wrong-root.xml; }
@test "corpus: resources/xinclude.xml" { corpus_check resources/xinclude.xml; }
@test "corpus: resources/xxe-file.xml" { corpus_check resources/xxe-file.xml; }
@test "corpus: resources/xxe-parameter-entity.xml" { corpus_check resources/xxe-parameter-entity.xml; }
@test "corpus: resources/xxe-url.xml" { corpus_check resources/xxe-url.xml; }
@test "corpus: workflows/foreach-empty-inner.yaml" { corpus_check workflows/foreach-empty-inner.yaml; }
