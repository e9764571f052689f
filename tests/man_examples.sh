#!/bin/sh
# man_examples.sh RLADV MANPAGE - runs every "$ rladv ..." line of the man
# page's EXAMPLES on samples/, with the built binary as rladv; each must
# exit 0 and write something.
rladv=$(cd "$(dirname "${1:-./rladv}")" && pwd)/$(basename "${1:-./rladv}")
man=${2:-man/rladv.1}
top=$(pwd)
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
ln -s "$rladv" "$tmp/bin/rladv"
ln -s "$top/samples" "$tmp/samples"
awk '/^\.Sh EXAMPLES/{on=1;next} /^\.Sh /{on=0} on && /^\$ rladv /{sub(/^\$ /,"");print}' \
    "$man" > "$tmp/examples"
pass=0 fail=0
while IFS= read -r cmd; do
	out=$(cd "$tmp" && PATH="$tmp/bin:$PATH" sh -c "$cmd" 2>"$tmp/err" | wc -c)
	rc=$?
	written=$(cd "$tmp" && ls -1 | grep -v -e bin -e samples -e examples -e err | head -1)
	if [ $rc -eq 0 ] && { [ "$out" -gt 0 ] || [ -n "$written" ]; } &&
	    ! grep -q -e Sanitizer -e 'rladv: .*:[0-9]*:' "$tmp/err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL example: $cmd"
		sed 's/^/    /' "$tmp/err" | head -5
	fi
	(cd "$tmp" && rm -f train.jsonl train.jsonl.gz bad.jsonl)
done < "$tmp/examples"
[ $((pass + fail)) -ge 5 ] || { echo "FAIL: found only $((pass + fail)) examples"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
