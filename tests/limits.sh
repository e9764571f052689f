#!/bin/sh
# limits.sh [DIR] - the house rules a program can check on src/ (DIR,
# default the src/ beside this script):
#   - no file over 800 lines;
#   - no function over 120 lines, counted from the line that names it to
#     its closing brace (style(9): the body opens with "{" alone on a line
#     and closes with "}" at the start of one);
#   - each header opens with a comment whose first paragraph says who owns
#     what it returns (a word "own", "owns", "owned" or "owner");
#   - DESIGN.md's module table (its "## Modules" section) names every
#     file of src/ (a header by itself or by its .c or .cu), and no file
#     that is not there.
# Prints one line per breach, then "N passed, M failed"; exit 1 on any.
src=${1:-$(dirname "$0")/../src}
design=${2:-$(dirname "$0")/../DESIGN.md}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1"; }

for f in "$src"/*.c "$src"/*.h "$src"/*.cu; do
	[ -f "$f" ] || continue
	n=$(wc -l < "$f")
	if [ "$n" -gt 800 ]; then
		no "${f##*/}: $n lines, over 800"
	else
		ok
	fi
	long=$(awk -v f="${f##*/}" '
	# A line that starts a declarator and does not end a prototype.
	/^[A-Za-z_][^;]*\(/ && !/;[ \t]*$/ { name = $0; at = NR }
	/^\{/ { if (at) { start = at; body = 1 } }
	/^\}/ {
		if (body && NR - start + 1 > 120) {
			sub(/\(.*/, "", name)
			printf "%s:%d: %s() is %d lines, over 120\n", f, start,
			    name, NR - start + 1
		}
		body = 0; at = 0
	}' "$f")
	if [ -n "$long" ]; then
		no "$long"
	else
		ok
	fi
done

for h in "$src"/*.h; do
	# The opening comment's first paragraph, as one line.
	para=$(awk 'NR == 1 && !/^\/\*/ { exit }
	    /^ \*$/ || /\*\// { exit }
	    { printf "%s ", $0 }' "$h")
	if [ -z "$para" ]; then
		no "${h##*/}: no opening comment"
	elif echo "$para" | grep -qiE '(^|[^a-z])own(s|ed|er)?([^a-z]|$)'; then
		ok
	else
		no "${h##*/}: the opening comment does not say who owns what it returns"
	fi
done
table=$(sed -n '/^## Modules/,/^## /p' "$design")
if [ -z "$table" ]; then
	no "${design##*/}: no section \"## Modules\""
fi
# named FILE: the table names FILE, in backquotes.
named() { printf '%s\n' "$table" | grep -qF "\`$1\`"; }
for f in "$src"/*.c "$src"/*.h "$src"/*.cu; do
	[ -f "$f" ] || continue
	b=${f##*/}
	case $b in
	*.h) named "$b" || named "${b%.h}.c" || named "${b%.h}.cu" ;;
	*) named "$b" ;;
	esac && ok || no "${design##*/}: the module table does not name $b"
done
for b in $(printf '%s\n' "$table" | grep -o '`[A-Za-z0-9_]*\.\(c\|h\|cu\)`' |
    tr -d '`' | sort -u); do
	[ -f "$src/$b" ] && ok || no "${design##*/}: the module table names $b, not in src/"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
