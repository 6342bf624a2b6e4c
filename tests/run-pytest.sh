#!/bin/sh
# Run the pytest suites against the built binaries.  As root, run them
# twice: as root, then as uid 65534 on a copy of what they need in a
# temporary directory that uid can read (the checkout may sit in a folder
# it cannot enter; the public fixtures beside the checkout, in
# ../shared/external-fixtures, are read where they are).  Extra arguments
# go to pytest (e.g. -k, -m).
set -eu
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
top=$(pwd)


echo "-- pytest as $(id -un) (uid $(id -u))"
CORDON_BUILD="$top/$BUILD" CORDON_SRC="$top" "$PYTHON" -m pytest -q \
	-p no:cacheprovider "$top/tests" "$@"

if [ "$(id -u)" = 0 ] && [ "${CORDON_NO_UNPRIV:-0}" != 1 ]; then
	tmp=$(mktemp -d /tmp/cordon-test.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT INT TERM
	mkdir -p "$tmp/src"
	# not the worker image's root file system (make image; gigabytes,
	# and its test needs root)
	mkdir -p "$tmp/build"
	tar -C "$BUILD" --exclude=./image-rootfs -cf - . | tar -C "$tmp/build" -xf -
	mkdir -p "$tmp/src/common" && cp common/cpol.h common/build.mk "$tmp/src/common/"
	# test_warm checks that the warm protocol is defined in warm.h only
	mkdir -p "$tmp/src/launcher" && cp -r launcher/warm "$tmp/src/launcher/"
	cp -r tests tools policies clients deploy man README.md VERSION Makefile "$tmp/src/"
	mkdir -p "$tmp/src/debian" && cp debian/changelog "$tmp/src/debian/"
	chmod -R a+rX "$tmp"
	chmod 0755 "$tmp"
	echo "-- pytest as uid 65534"
	# From the copy: the checkout may be a folder that uid cannot enter,
	# and pytest looks at its working directory.
	cd "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- env -i \
		PATH=/usr/bin:/bin HOME="$tmp" LANG=C.UTF-8 \
		CORDON_BUILD="$tmp/build" CORDON_SRC="$tmp/src" \
		CORDON_FIXTURES="$top/../shared/external-fixtures" \
		"$PYTHON" -m pytest -q -p no:cacheprovider \
		-o cache_dir="$tmp/.cache" "$tmp/src/tests" "$@"
fi
