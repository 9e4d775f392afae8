#!/bin/bash
# One command-line convention for every command (docs/cli.md): a short
# option means one thing everywhere; --help, --version and `sibyl help
# CMD` work on each; usage errors exit 2 with one line; long options are
# taken by their whole name only; help is filled to the terminal width.
. "$(dirname "$0")/lib.sh"

# The commands and subcommands `sibyl --help` lists ("  plan envelope  ...").
mapfile -t COMMANDS < <(COLUMNS=200 "$SIBYL" --help | sed -n 's/^  \([a-z][a-z -]*[a-z]\)  .*/\1/p')
[ "${#COMMANDS[@]}" -ge 8 ] || fail "sibyl --help lists ${#COMMANDS[@]} commands"
VERSION=$("$SIBYL" --version)

# one_line_usage_error WHAT PATTERN CMD...: exit 2, one line on stderr
# matching PATTERN, nothing on stdout.
one_line_usage_error() {
	local what=$1 pattern=$2 st=0
	shift 2
	"$@" >"$WORK/out" 2>"$WORK/err" </dev/null || st=$?
	expect_eq "$what: exit status" 2 "$st"
	[ "$(wc -l <"$WORK/err")" = 1 ] || fail "$what: not one line: $(cat "$WORK/err")"
	grep -Eq -- "$pattern" "$WORK/err" || fail "$what: '$(cat "$WORK/err")' lacks '$pattern'"
	[ ! -s "$WORK/out" ] || fail "$what: printed $(cat "$WORK/out")"
}

# long_options CMD...: the long names --help lists, one a line.
long_options() {
	COLUMNS=1000 "$SIBYL" "$@" --help | sed -n 's/^  \(-[^-], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p'
}

# Lines of FILE longer than WIDTH that are more than one word.
overlong() {
	awk -v w="$2" 'length($0) > w && $0 ~ /[^ ] +[^ ]/' "$1"
}

for cmd in "${COMMANDS[@]}"; do
	read -ra words <<<"$cmd"
	COLUMNS=80 "$SIBYL" "${words[@]}" --help >"$WORK/help" 2>"$WORK/err" ||
		fail "$cmd --help: exit status $?"
	[ ! -s "$WORK/err" ] || fail "$cmd --help: stderr: $(cat "$WORK/err")"
	grep -q "^usage: sibyl $cmd " "$WORK/help" || fail "$cmd --help: no usage line"
	COLUMNS=80 "$SIBYL" help "${words[@]}" >"$WORK/help2" || fail "sibyl help $cmd failed"
	cmp -s "$WORK/help" "$WORK/help2" || fail "sibyl help $cmd differs from $cmd --help"
	expect_eq "$cmd --version" "$VERSION" "$("$SIBYL" "${words[@]}" --version)"

	one_line_usage_error "$cmd --no-such-option" "^sibyl: $cmd: unknown option '--no-such-option'" \
		"$SIBYL" "${words[@]}" --no-such-option
	mapfile -t longs < <(long_options "${words[@]}")
	[ "${#longs[@]}" -ge 3 ] || fail "$cmd: ${#longs[@]} long options in --help"
	for name in "${longs[@]}"; do
		prefix=${name%?}
		[ "${#prefix}" -ge 3 ] || continue
		printf '%s\n' "${longs[@]}" | grep -qx -- "$prefix" && continue
		one_line_usage_error "$cmd --$prefix" "did you mean (.* )?--$name[ ?]" \
			"$SIBYL" "${words[@]}" "--$prefix" x
	done
	# An option's argument missing: the first option --help shows one for.
	with_arg=$(COLUMNS=1000 "$SIBYL" "${words[@]}" --help |
		sed -n 's/^  \(-[^-], \)\{0,1\}--\([a-z0-9-]*\) [^ ].*/\2/p' | head -n 1)
	one_line_usage_error "$cmd --$with_arg (no argument)" "missing argument" \
		"$SIBYL" "${words[@]}" "--$with_arg"

	# Filled to COLUMNS; without it and without a terminal, to 80.
	for width in 40 57 100; do
		COLUMNS=$width "$SIBYL" "${words[@]}" --help >"$WORK/w"
		[ -z "$(overlong "$WORK/w" "$width")" ] ||
			fail "$cmd --help, COLUMNS=$width: $(overlong "$WORK/w" "$width")"
	done
	env -u COLUMNS "$SIBYL" "${words[@]}" --help >"$WORK/w" </dev/null
	cmp -s "$WORK/help" "$WORK/w" || fail "$cmd --help without COLUMNS: not 80 columns"
	echo "ok: $cmd: --help, help $cmd, --version, usage errors, widths"
done

# On a terminal, the terminal's width (script(1) gives the command one).
if command -v script >/dev/null; then
	env -u COLUMNS script -qec "stty cols 50; '$SIBYL' kernel --help" /dev/null |
		tr -d '\r' >"$WORK/tty"
	grep -q '^usage: sibyl kernel' "$WORK/tty" || fail "no help on a terminal: $(cat "$WORK/tty")"
	[ -z "$(overlong "$WORK/tty" 50)" ] || fail "terminal of 50 columns: $(overlong "$WORK/tty" 50)"
	[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$WORK/tty")" -gt 40 ] ||
		fail "terminal of 50 columns: help narrower than 41"
	echo "ok: help filled to a 50-column terminal"
fi

# Every short letter means one long option in every command, and the
# letters the convention fixes mean what it says.
declare -A meaning where
for cmd in "${COMMANDS[@]}"; do
	read -ra words <<<"$cmd"
	while read -r letter long; do
		if [ -n "${meaning[$letter]:-}" ] && [ "${meaning[$letter]}" != "$long" ]; then
			fail "-$letter is --${meaning[$letter]} in ${where[$letter]} but --$long in $cmd"
		fi
		meaning[$letter]=$long
		where[$letter]=$cmd
	done < <(COLUMNS=1000 "$SIBYL" "${words[@]}" --help |
		sed -n 's/^  -\([^-]\), --\([a-z0-9-]*\).*/\1 \2/p')
done
[ "${#meaning[@]}" -ge 10 ] || fail "only ${#meaning[@]} short letters found"
for rule in f:force o:output s:sort t:threads l:lsize r:range e:evaluate n:samples h:help; do
	expect_eq "-${rule%%:*}" "${rule#*:}" "${meaning[${rule%%:*}]:-}"
done

# The old spelling kept working: kernel --out is -o.
"$SIBYL" kernel --help | grep -c -- '--out ' >/dev/null && fail "kernel --help shows --out"
one_line_usage_error "kernel --out (kept)" "kernel: -g GSIZE is required" \
	"$SIBYL" kernel "$SIBYL_SOURCE/tests/kernels/args/loop.cl" -k loop --out "$WORK/k.jsonl"
echo "ok: kernel --out still parses"
