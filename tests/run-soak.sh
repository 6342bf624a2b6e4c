#!/bin/sh
# make soak: tools/soak.py as the caller, then (as root) as uid 65534 on
# a copy of the build in a temporary directory that uid can read, as
# tests/run-pytest.sh does.  SOAK_RUNS runs each (CI: a short version).
set -eu
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
RUNS=${SOAK_RUNS:-300}
top=$(pwd)

"$PYTHON" "$top/tools/soak.py" --build "$top/$BUILD" --runs "$RUNS"

if [ "$(id -u)" = 0 ] && [ "${CORDON_NO_UNPRIV:-0}" != 1 ]; then
	tmp=$(mktemp -d /tmp/cordon-soak-src.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT INT TERM
	cp -r "$BUILD" "$tmp/build"
	cp tools/soak.py "$tmp/"
	chmod -R a+rX "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- env -i \
		PATH=/usr/bin:/bin HOME="$tmp" LANG=C.UTF-8 \
		"$PYTHON" "$tmp/soak.py" --build "$tmp/build" --runs "$RUNS"
fi
