#!/bin/sh
# Corpus test of cordonc (run by `make check` from the top directory): every
# policy in the tree (shipped, base fragments, tests, bench, deploy) compiles
# (-I policies, as the tests compile them) to exactly the bytes recorded in
# tests/corpus/sha256.txt, or is refused where the record says "refused".
# A golden test's NAME.args is passed too.
# The record was written by the compiler before the tree was reorganised
# (issue 14): a refactor that changes one byte of one blob fails here.
# Set UPDATE=1 to rewrite the record (then explain the diff in the commit).
set -u
BUILD=${BUILD:-build}
top=$(pwd)
cc="$top/$BUILD/cordonc"
rec="$top/tests/corpus/sha256.txt"
tmp=$(mktemp -d /tmp/cordon-corpus.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

find . -name '*.policy' -not -path './build*' -not -path './.git/*' |
	LC_ALL=C sort | while IFS= read -r f; do
	args=$(cat "${f%.policy}.args" 2>/dev/null || true)
	dir=$(dirname "$f")
	rm -f "$tmp/out.cpol"
	# shellcheck disable=SC2086
	if (cd "$dir" && "$cc" compile -I "$top/policies" $args -o "$tmp/out.cpol" \
		"$(basename "$f")") >/dev/null 2>&1; then
		sum=$(sha256sum "$tmp/out.cpol" | cut -d' ' -f1)
	else
		sum=refused
	fi
	printf '%s  %s\n' "$sum" "$f"
done >"$tmp/now.txt"

if [ "${UPDATE:-0}" = 1 ]; then
	cp "$tmp/now.txt" "$rec"
	echo "corpus: recorded $(wc -l <"$rec") policies"
	exit 0
fi
if ! cmp -s "$rec" "$tmp/now.txt"; then
	echo "FAIL: corpus: blobs differ from tests/corpus/sha256.txt"
	diff -u "$rec" "$tmp/now.txt" | head -40
	exit 1
fi
echo "corpus: $(wc -l <"$rec") policies, same bytes"
