#!/usr/bin/env bash
# plan show draws labels taken from the profile file (its name, work
# metric and the implementations of an envelope's pieces): a label of
# thousands of characters crashed PLplot's SVG driver, and a '#' started
# one of PLplot's escape sequences (warnings on stderr).  Labels are cut
# and escaped: the plot is drawn, exit 0, nothing on stderr.
. "$(dirname "$0")/../lib.sh"

/usr/bin/python3 - "$WORK" <<'PY'
import json, sys
long = 'x' * 3000
j = {'format': 'sibyl-profile', 'version': 1, 'min_version': 1,
     'name': 'n' * 3000 + '#(9999)', 'work_metric': 'w' * 3000 + '#[0x',
     'range': [1, 10], 'points': [[1, 1], [5, 2], [10, 3]],
     'pieces': [{'from': 1, 'to': 5, 'implementation': long},
                {'from': 5, 'to': 10, 'implementation': '#[0xzz #<x/> \u00e9\u00e9\u00e9\n\t#'}]}
json.dump(j, open(sys.argv[1] + '/long.json', 'w'))
j['name'] = '\u00e9' * 3000          # two bytes a character: cut on a character
del j['pieces']
json.dump(j, open(sys.argv[1] + '/utf8.json', 'w'))
PY

for profile in long utf8; do
	for ext in svg png; do
		status=0
		"$SIBYL" plan show "$WORK/$profile.json" -o "$WORK/$profile.$ext" 2>"$WORK/err" || status=$?
		[ "$status" -eq 0 ] || { cat "$WORK/err"; fail "plan show $profile.$ext: exit status $status"; }
		[ ! -s "$WORK/err" ] || { cat "$WORK/err"; fail "plan show $profile.$ext: wrote to stderr"; }
		[ -s "$WORK/$profile.$ext" ] || fail "plan show $profile.$ext: no plot"
		echo "ok: plan show $profile.$ext"
	done
done
# The SVG holds each character as an entity: 'x' is &#x78;, '.' &#x2e;.
grep -q '>\(&#x78;\)\{60\}\(&#x2e;\)\{3\}<' "$WORK/long.svg" || fail "the long name is not cut at 60"
! grep -q '\(&#x78;\)\{61\}' "$WORK/long.svg" || fail "more than 60 characters of the long name"
grep -q '&#x23;&#x5b;&#x30;&#x78;&#x7a;' "$WORK/long.svg" || fail "'#[0xz' not drawn as text"
echo "ok: plan labels"
