#!/bin/sh
# Golden tests of cordonc (run by `make check` from the top directory):
#   NAME.policy   a bad policy; NAME.expected the exact stderr of
#                 `cordonc compile [NAME.args] NAME.policy`, which must exit
#                 1 and write nothing
#   ok/*.policy   good policies: compile, explain (source and blob agree,
#                 every rule shown), determinism (twice, and from a copy in
#                 another directory: same bytes)
#   exit codes:   0 ok, 1 policy errors, 2 usage
# Set UPDATE=1 to rewrite the .expected files (then review the diff).
set -u
BUILD=${BUILD:-build}
top=$(pwd)
cc="$top/$BUILD/cordonc"
here="$top/tests/golden"
tmp=$(mktemp -d /tmp/cordon-golden.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# The installed bases' folder is compiled in (PREFIX): shown as @POLICY_DIR@.
pdir=$("$cc" --help | sed -n 's/^includes: .*, then //p')
cd "$here" || exit 1
for f in *.policy; do
	n=${f%.policy}
	args=$(cat "$n.args" 2>/dev/null || true)
	rm -f "$tmp/out.cpol"
	# shellcheck disable=SC2086
	"$cc" compile $args -o "$tmp/out.cpol" "$f" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	sed "s|$pdir|@POLICY_DIR@|g" "$tmp/stderr" >"$tmp/stderr.n" &&
		mv "$tmp/stderr.n" "$tmp/stderr"
	[ "$rc" = 1 ] || fail "$f: exit $rc, want 1"
	[ -e "$tmp/out.cpol" ] && fail "$f: wrote a blob despite errors"
	[ -s "$tmp/stdout" ] && fail "$f: wrote to stdout"
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$tmp/stderr" "$n.expected"
	elif ! cmp -s "$tmp/stderr" "$n.expected"; then
		fail "$f: diagnostics differ"
		diff -u "$n.expected" "$tmp/stderr" | head -40
	fi
done

# Exit codes and usage.
"$cc" --version >/dev/null || fail "--version"
"$cc" >/dev/null 2>&1; [ $? = 2 ] || fail "no arguments: want exit 2"
"$cc" compile >/dev/null 2>&1; [ $? = 2 ] || fail "compile without FILE: want 2"
"$cc" compile --bogus x.policy >/dev/null 2>&1; [ $? = 2 ] || fail "bad option: want 2"
"$cc" compile -D 1X=2 ok/radiomics.policy >/dev/null 2>&1; [ $? = 2 ] || fail "bad -D: want 2"
"$cc" frobnicate >/dev/null 2>&1; [ $? = 2 ] || fail "unknown subcommand: want 2"
"$cc" compile -o "$tmp/x.cpol" "$tmp/nonexistent.policy" 2>/dev/null; [ $? = 1 ] || fail "missing file: want 1"
# Messages outside a policy's diagnostics (issue 41): each says what was
# meant and how; the exact line, the temporary folder shown as @TMP@.
says() {
	want=$1
	shift
	"$@" >"$tmp/says.out" 2>"$tmp/says.err"
	sed "s|$tmp|@TMP@|g" "$tmp/says.err" | grep -qxF -- "$want" || {
		fail "$*: stderr lacks: $want"
		sed 's/^/    /' "$tmp/says.err"
	}
}
cordon="$top/$BUILD/cordon"
printf 'policy "hello";\ncommand "/usr/bin/python3" "$SNIPPET";\n' >"$tmp/hello.policy"
echo 'print(1)' >"$tmp/p.py"
says 'cordonc: error: cannot read "@TMP@/nonexistent/x.policy": No such file or directory' \
	"$cc" lint "$tmp/nonexistent/x.policy"
says 'cordonc: error: cannot read "@TMP@/nonexistent/x.policy": No such file or directory' \
	"$cc" compile -o "$tmp/x.cpol" "$tmp/nonexistent/x.policy"
says 'cordon: @TMP@/hello.policy: a policy source, not a compiled blob: compile it with cordonc first (cordonc compile -o @TMP@/hello.cpol @TMP@/hello.policy)' \
	"$cordon" "$tmp/hello.policy" "$tmp/p.py"
pool="@cordon-golden-none-$$"
says "cordon: --submit $pool: no pool listens on $pool yet (a pool takes requests once cordon --serve $pool has said \"warm pool $pool ready\")" \
	"$cordon" --submit "$pool" "$tmp/p.py"
says 'cordon: --submit nopool: a pool'"'"'s name is @ and 1 to 107 bytes (cordon --serve @name policy.cpol)' \
	"$cordon" --submit nopool "$tmp/p.py"

# The output is replaced atomically, but never a device, directory or link
# (as root, renaming over /dev/null would replace the device node).
echo keep > "$tmp/target"; ln -s "$tmp/target" "$tmp/link"; mkfifo "$tmp/fifo"
for o in "$tmp/link" "$tmp/fifo" "$tmp"; do
	"$cc" compile -o "$o" "$here/ok/radiomics.policy" 2>/dev/null
	[ $? = 1 ] || fail "-o $o (not a regular file): want 1"
done
[ -L "$tmp/link" ] && [ -p "$tmp/fifo" ] && [ "$(cat "$tmp/target")" = keep ] ||
	fail "-o replaced a link or fifo"

# The merge rule for network-owned syscalls: a later file's network
# statement replaces an included file's rules on sendto/sendmsg (MSG_FASTOPEN
# stays refused); the same rule in the network statement's own file is an error.
mkdir -p "$tmp/net/base"
echo 'allow sendto, sendmsg;' > "$tmp/net/base/send.policy"
printf 'include "base/send.policy";\npolicy "n";\nnetwork connect 443;\npath /usr rx;\ncommand "/bin/true";\n' > "$tmp/net/n.policy"
"$cc" compile -o "$tmp/net/n.cpol" "$tmp/net/n.policy" || fail "net merge: compile"
"$cc" explain "$tmp/net/n.cpol" | grep -qx '  allow  *sendto(flags & MSG_FASTOPEN == 0)  *# n.policy:3' ||
	fail "net merge: sendto not replaced by the network statement's rule"
echo 'allow sendto;' >> "$tmp/net/n.policy"
"$cc" compile -o "$tmp/net/n2.cpol" "$tmp/net/n.policy" 2>/dev/null
[ $? = 1 ] || fail "net merge: rule in the network statement's file must fail"

# Good policies: compile, round trip through explain, determinism.
cd "$here/ok" || exit 1
for f in *.policy; do
	n=${f%.policy}
	"$cc" compile -o "$tmp/$n.cpol" "$f" || { fail "$f: compile"; continue; }
	"$cc" compile -o "$tmp/$n.2.cpol" "$f" || fail "$f: compile twice"
	cmp -s "$tmp/$n.cpol" "$tmp/$n.2.cpol" || fail "$f: not deterministic"
	rm -rf "$tmp/copy" && mkdir -p "$tmp/copy/deeper" && cp -r . "$tmp/copy/deeper/"
	(cd "$tmp" && "$cc" compile -o "$tmp/$n.3.cpol" "copy/deeper/$f") ||
		fail "$f: compile from a copy"
	cmp -s "$tmp/$n.cpol" "$tmp/$n.3.cpol" || fail "$f: bytes depend on the directory"
	"$cc" explain "$tmp/$n.cpol" >"$tmp/blob.txt" || fail "$f: explain blob"
	"$cc" explain "$f" >"$tmp/src.txt" || fail "$f: explain source"
	# the same but for the blob's own digest, which a source lacks
	grep -v "blob sha256" "$tmp/blob.txt" | cmp -s - "$tmp/src.txt" ||
		fail "$f: explain of source and blob differ"
	"$cc" explain --json "$tmp/$n.cpol" >"$tmp/blob.json" || fail "$f: explain --json"
	# every rule of the blob is a whole rule line of the explanation
	# (action, rule, origin: "read" must not pass for "pread64")
	"$cc" explain --json "$tmp/$n.cpol" | python3 -c '
import json, re, sys
d = json.load(sys.stdin)
line = re.compile(r"^  (\S+)\s+(.*?)\s+# (\S+)$")
shown = {m.groups() for m in map(line.match, open(sys.argv[1])) if m}
rules = d["seccomp"]["rules"]
missing = [r for r in rules
           if (r["action"], r["text"], r["origin"]) not in shown]
for r in missing:
    print("not in explain:", r["action"], r["text"], r["origin"])
sys.exit(1 if missing or not rules else 0)
' "$tmp/blob.txt" || fail "$f: a rule is missing from explain"
	# NAME.expect-explain: whole lines of explain (indentation aside)
	if [ -f "$n.expect-explain" ]; then
		sed 's/^ *//; s/ *$//' "$tmp/blob.txt" >"$tmp/lines.txt"
		while IFS= read -r line; do
			grep -qxF -- "$line" "$tmp/lines.txt" || fail "$f: explain lacks: $line"
		done <"$n.expect-explain"
	fi
done

# -D overrides a define; -Werror turns a warning into an error.
"$cc" compile -D PORT=8443 -o "$tmp/d.cpol" radiomics.policy || fail "-D compile"
"$cc" explain "$tmp/d.cpol" | grep -qx "  network: tcp; connect 8080, connect 8443" ||
	fail "-D did not reach the blob"
cmp -s "$tmp/d.cpol" "$tmp/radiomics.cpol" && fail "-D changed nothing"

if [ "$fails" -ne 0 ]; then
	echo "golden: $fails failure(s)"
	exit 1
fi
echo "golden: ok"
