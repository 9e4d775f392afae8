#!/bin/bash
# The instrumented-binary cache trusts nothing another user could write:
# a private directory even without a home, none that is foreign or
# writable by others, and no entry that is not whole (a truncated one
# made PoCL assert on every later run, a FIFO hung the runner, /dev/zero
# was read until memory ran out): a damaged entry is rebuilt, replaced.
. "$(dirname "$0")/../lib.sh"
K="$SIBYL_SOURCE/tests/kernels/args"

run() {	# run NAME [OPTION...]: -i on loop.cl, JSON in $WORK/NAME.json, stderr in $WORK/NAME.err
	local name=$1
	shift
	"$SIBYL" kernel "$K/loop.cl" -k loop -g 64 -i --json "$@" > "$WORK/$name.json" \
		2> "$WORK/$name.err" || fail "$name: exit status $?: $(cat "$WORK/$name.err")"
}
cache_of() { json "j['cache']" "$WORK/$1.json"; }

# Without HOME and XDG_CACHE_HOME: this user's own directory, 0700,
# under TMPDIR (it was /tmp/.cache/sibyl, shared with every user).
(unset HOME XDG_CACHE_HOME; TMPDIR="$WORK" run nohome)
expect_eq "no home: cache" miss "$(cache_of nohome)"
priv="$WORK/sibyl-cache-$(id -u)"
expect_eq "no home: a private directory" 700 "$(stat -c %a "$priv")"
ls "$priv"/*.e1 > /dev/null || fail "no home: no entry in $priv"
(unset HOME XDG_CACHE_HOME; TMPDIR="$WORK" run nohome2)
expect_eq "no home: again" hit "$(cache_of nohome2)"

export XDG_CACHE_HOME="$WORK/xdg"
dir="$XDG_CACHE_HOME/sibyl"
run first
expect_eq "first run" miss "$(cache_of first)"
expect_eq "created private" 700 "$(stat -c %a "$dir")"
entry=$(ls "$dir"/*.e1)
cp "$entry" "$WORK/good.bin"
run second
expect_eq "second run" hit "$(cache_of second)"
expect_eq "a hit warns of nothing" "" "$(cat "$WORK/second.err")"

# A directory others may write to holds binaries we did not build: it
# is refused in one line and the run goes on without the cache.
refused() {	# refused WHAT PATTERN
	run refused
	expect_eq "$1: cache" off "$(cache_of refused)"
	expect_eq "$1: one line" 1 "$(wc -l < "$WORK/refused.err")"
	grep -q "^sibyl: warning: kernel: cache directory $dir: $2: running without the cache$" \
		"$WORK/refused.err" || fail "$1: $(cat "$WORK/refused.err")"
	cmp -s "$entry" "$WORK/good.bin" || fail "$1: the entry was touched"
}
chmod 0777 "$dir"
refused "writable by others" "writable by others (mode 0777)"
chmod 0770 "$dir"
refused "writable by the group" "writable by others (mode 0770)"
chmod 0700 "$dir"
if [ "$(id -u)" = 0 ]; then
	chown nobody "$dir"
	refused "owned by another user" "owned by uid $(id -u nobody), not by uid 0"
	chown root "$dir"
fi

# Damaged entries: one warning, rebuilt, and the next run is a hit.
heal() {	# heal WHAT [OPTION...]: $entry was damaged
	local what=$1
	shift
	run healed "$@"
	expect_eq "$what: rebuilt" miss "$(cache_of healed)"
	expect_eq "$what: one warning" 1 "$(grep -c "^sibyl: warning: kernel: cache entry $entry is damaged (" "$WORK/healed.err")"
	[ -f "$entry" ] && [ ! -L "$entry" ] || fail "$what: no regular entry after the run"
	run after
	expect_eq "$what: then a hit" hit "$(cache_of after)"
	expect_eq "$what: same counts" "$(json "j['instcounts']" "$WORK/first.json")" \
		"$(json "j['instcounts']" "$WORK/after.json")"
}
head -c 1000 "$WORK/good.bin" > "$entry"
heal "truncated"
cp "$WORK/good.bin" "$entry"
printf 'x' | dd of="$entry" bs=1 seek=20000 conv=notrunc status=none
heal "one byte changed"
cp "$WORK/good.bin" "$entry"
echo more >> "$entry"
heal "extended"
# Another key's entry (-O1 is another bitcode) under this key's name.
run o1 -O1
other=$(ls "$dir"/*.e1 | grep -vx "$entry")
cp "$WORK/good.bin" "$other"
run renamed -O1
expect_eq "another key's entry: no hit" miss "$(cache_of renamed)"
grep -q "damaged (not an entry of this key)" "$WORK/renamed.err" || fail "renamed: $(cat "$WORK/renamed.err")"
cp "$WORK/good.bin" "$entry"
rm "$entry"
mkfifo "$entry"
heal "a FIFO" --timeout 3
rm "$entry"
ln -s /dev/zero "$entry"
# A bound, should the entry be read without one.
(ulimit -v 4000000; heal "/dev/zero")
rm "$entry"
truncate -s 300M "$entry"
(ulimit -v 4000000; heal "300 MiB")
echo "ok: kernel cache"
