# Shared helpers for the integration tests (sourced by bash scripts).
# Environment from CTest: SIBYL (the sibyl binary), SIBYL_BUILD, SIBYL_SOURCE.
set -euo pipefail

: "${SIBYL:?run through ctest}"
# A test that mounts (a tmpfs) sets SIBYL_NEEDS_MOUNT_NS=WHY before
# sourcing this file: it then runs again as root in a private mount
# namespace, or is skipped (status 77, the test's SKIP_RETURN_CODE).
if [ -n "${SIBYL_NEEDS_MOUNT_NS:-}" ] && [ "${SIBYL_IN_MOUNT_NS:-}" != 1 ]; then
	if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
		echo "SKIP: needs root and unshare -m $SIBYL_NEEDS_MOUNT_NS"
		exit 77
	fi
	SIBYL_IN_MOUNT_NS=1 exec unshare -m "$0" "$@"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sibyl-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TARGETS_LIB="$SIBYL_BUILD/lib"
TARGETS_BIN="$SIBYL_BUILD/bin"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# json QUERY FILE: evaluate a Python expression over the parsed JSON `j`.
json() {
	/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"
}

expect_eq() {	# expect_eq WHAT EXPECTED ACTUAL
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "ok: $1 = $3"
}

# calls_of REPORT.json FUNCTION: the number of calls of one function.
calls_of() {
	json "sum(f['calls'] for f in j['functions'] if f['name'] == '$2')" "$1"
}
