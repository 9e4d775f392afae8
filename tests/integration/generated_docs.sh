#!/bin/bash
# The man pages and the bash completion the build generates from the
# option tables (docs/cli.md): the completion offers every long option of
# every command's --help, and man renders every page without a warning.
. "$(dirname "$0")/lib.sh"

COMPLETION="$SIBYL_BUILD/share/bash-completion/completions/sibyl"
MAN_DIR="$SIBYL_BUILD/share/man/man1"
[ -f "$COMPLETION" ] || fail "no completion script at $COMPLETION"
[ -f "$MAN_DIR/sibyl.1" ] || fail "no man page at $MAN_DIR/sibyl.1"

mapfile -t COMMANDS < <(COLUMNS=200 "$SIBYL" --help | sed -n 's/^  \([a-z][a-z -]*[a-z]\)  .*/\1/p')
[ "${#COMMANDS[@]}" -ge 8 ] || fail "sibyl --help lists ${#COMMANDS[@]} commands"

# complete WORD...: what the completion offers for the command line
# "sibyl WORD..." with the cursor at the end of the last word.
# shellcheck disable=SC1090
. "$COMPLETION"
complete_words() {
	COMP_WORDS=(sibyl "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_sibyl sibyl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}"
}

long_options() {
	COLUMNS=1000 "$SIBYL" "$@" --help | sed -n 's/^  \(-[^-], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p'
}

offered=$(complete_words "")
for cmd in "${COMMANDS[@]}"; do
	read -ra words <<<"$cmd"
	[ "${#words[@]}" = 1 ] || continue
	grep -qx -- "$cmd" <<<"$offered" || fail "'sibyl <TAB>' does not offer $cmd"
done
expect_eq "'sibyl plan <TAB>'" "envelope evaluate list run show" "$(complete_words plan "" | sort | xargs)"
expect_eq "'sibyl rep<TAB>'" report "$(complete_words rep)"

for cmd in "${COMMANDS[@]}"; do
	read -ra words <<<"$cmd"
	mapfile -t longs < <(long_options "${words[@]}")
	[ "${#longs[@]}" -ge 3 ] || fail "$cmd: ${#longs[@]} long options in --help"
	# After an operand too: `sibyl report DIR --<TAB>`.
	for at in "" operand; do
		offered=$(complete_words "${words[@]}" ${at:+"$at"} --)
		for name in "${longs[@]}"; do
			grep -qx -- "--$name" <<<"$offered" ||
				fail "'sibyl $cmd ${at:+$at }--<TAB>' does not offer --$name"
		done
	done
	page="$MAN_DIR/sibyl-${cmd// /-}.1"
	[ -f "$page" ] || fail "$cmd: no man page $page"
	for name in "${longs[@]}"; do
		grep -qF -- "\\-\\-${name//-/\\-}" "$page" || fail "$page lacks --$name"
	done
	echo "ok: $cmd: completion and man page list its ${#longs[@]} long options"
done
# Option words only where an option is being typed; files otherwise.
expect_eq "'sibyl report <TAB>'" "" "$(complete_words report "")"
expect_eq "'sibyl trace -- ls --<TAB>' is not sibyl's" "" \
	"$(complete_words trace -- ls -- | grep -x -- --force || true)"

if ! command -v man >/dev/null; then
	echo "skip: man is not installed: pages not rendered"
	exit 0
fi
for page in "$MAN_DIR"/*.1; do
	name=$(basename "$page" .1)
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E ascii -l "$page" >"$WORK/page" 2>"$WORK/warnings" ||
		fail "man -l $page failed: $(cat "$WORK/warnings")"
	[ ! -s "$WORK/warnings" ] || fail "man -l $page: $(cat "$WORK/warnings")"
	grep -q "^NAME" "$WORK/page" || fail "$name: no NAME section"
	grep -Eq "^ +$name +- " "$WORK/page" || fail "$name: NAME is not '$name - ...'"
	if command -v lexgrog >/dev/null; then
		lexgrog "$page" | grep -q "\"$name - " || fail "$name: whatis cannot parse its NAME"
	fi
done
# The rendered page shows the options as typed (ASCII hyphens).
LC_ALL=C.UTF-8 MANWIDTH=80 man -E ascii -l "$MAN_DIR/sibyl-kernel.1" >"$WORK/page"
grep -q -- "-f, --force" "$WORK/page" || fail "sibyl-kernel(1) does not show -f, --force"
echo "ok: man renders $(ls "$MAN_DIR"/*.1 | wc -l) pages without warnings"
