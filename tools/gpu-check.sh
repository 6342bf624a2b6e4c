#!/bin/sh
# tools/gpu-check.sh - run policies/monai_infer.policy's GPU path on this
# machine, under cordon with every layer it can apply, and try what the
# policy must refuse.
#
#   sh tools/gpu-check.sh [--build DIR] [--python PATH] [--require-gpu]
#                         [--reps N] [--size N] [--json FILE] [--keep]
#
# --build DIR    use the cordon and cordonc built in DIR (default: build
#                this tree with make, into build/); also $CORDON_BUILD
# --python PATH  the interpreter torch is installed for (default: python3
#                on PATH, not resolved: a venv's bin/python3 stays a venv);
#                also $GPU_CHECK_PYTHON
# --require-gpu  fail when there is no GPU instead of checking the CPU path
# --reps N       timed forward passes (default 20); --size N: the volume's
#                edge (default 32)
# --json FILE    also write the findings as JSON (figures, definitions,
#                device nodes and files the bare run used)
# --keep         keep the scratch directory (blobs, stand-ins, status)
#
# It compiles the shipped monai_infer.policy with `cordonc compile -D` for
# this machine's interpreter and driver paths (see the defines in
# policies/base/python.policy and policies/monai_infer.policy), runs
# tools/gpu/workload.py bare and under cordon, and tools/gpu/hostile.py's
# probes under cordon.  Without a GPU (no /dev/nvidia0, or torch sees
# none) it checks the CPU path and says "no GPU: CPU fallback only".
# Exit: 0 every check passed; 1 a check failed; 2 usage or build error;
# 3 cordon refuses to run the policy on this kernel (e.g. no Landlock:
# the policy fails closed and has no best-effort).
set -eu

usage() {
	sed -n '6,17p' "$0" | sed 's/^# \{0,1\}//'
}

src=$(cd "$(dirname "$0")/.." && pwd)
build=${CORDON_BUILD:-}
python=${GPU_CHECK_PYTHON:-}
require_gpu=0
reps=20
size=32
json=
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=${2:?--build needs a directory}; shift 2 ;;
	--python) python=${2:?--python needs a path}; shift 2 ;;
	--require-gpu) require_gpu=1; shift ;;
	--reps) reps=${2:?--reps needs a number}; shift 2 ;;
	--size) size=${2:?--size needs a number}; shift 2 ;;
	--json) json=${2:?--json needs a file}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
case $reps$size in *[!0-9]*|'') usage >&2; exit 2 ;; esac

if [ -z "$build" ]; then
	build=$src/build
	echo "gpu-check: building cordon in $build"
	if ! make -C "$src" -j"$(nproc 2>/dev/null || echo 2)" >&2; then
		echo "gpu-check: the build failed; build where the tools are" \
			"and pass --build DIR" >&2
		exit 2
	fi
fi
build=$(cd "$build" && pwd)
for p in cordon cordonc; do
	if [ ! -x "$build/$p" ]; then
		echo "gpu-check: $build/$p is missing" >&2
		exit 2
	fi
done

if [ -z "$python" ]; then
	python=$(command -v python3) || { echo "gpu-check: no python3" >&2; exit 2; }
fi
case $python in
/*) ;;
*) python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python") ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
chmod 0755 "$tmp"
if [ "$keep" = 1 ]; then
	echo "gpu-check: scratch directory $tmp (kept)"
else
	trap 'rm -rf "$tmp"' EXIT INT TERM
fi
case $json in ''|/*) ;; *) json=$(pwd)/$json ;; esac

rc=0
"$python" -I -B "$src/tools/gpu/check.py" "$src" "$build" "$tmp" \
	"$python" "$require_gpu" "$reps" "$size" "$json" || rc=$?
exit "$rc"
