#!/bin/sh
# man_examples.sh RLADV MANPAGE - runs every "$ rladv ..." line of the man
# page's EXAMPLES on samples/, with the built binary as rladv; each must
# run rladv, every rladv it runs must exit 0 (its own status, recorded by
# a wrapper, whatever the line's pipes or redirections do with it), the
# line must exit 0 and write something, to stdout or to a file.
rladv=$(cd "$(dirname "${1:-./rladv}")" && pwd)/$(basename "${1:-./rladv}")
man=${2:-man/rladv.1}
top=$(pwd)
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/run"
cat > "$tmp/bin/rladv" <<EOF
#!/bin/sh
"$rladv" "\$@"
rc=\$?
echo \$rc >> "$tmp/status"
exit \$rc
EOF
chmod +x "$tmp/bin/rladv"
ln -s "$top/samples" "$tmp/run/samples"
awk '/^\.Sh EXAMPLES/{on=1;next} /^\.Sh /{on=0} on && /^\$ rladv /{sub(/^\$ /,"");print}' \
    "$man" > "$tmp/examples"
pass=0 fail=0
while IFS= read -r cmd; do
	: > "$tmp/status"
	(cd "$tmp/run" && PATH="$tmp/bin:$PATH" sh -c "$cmd" \
	    >"$tmp/out" 2>"$tmp/err")
	rc=$?
	runs=$(wc -l < "$tmp/status")
	bad=$(grep -v -x 0 "$tmp/status" | head -1)
	written=$(cd "$tmp/run" && ls -1 | grep -v -x samples | head -1)
	why=
	if [ "$runs" -eq 0 ]; then
		why="rladv did not run"
	elif [ -n "$bad" ]; then
		why="rladv exited $bad"
	elif [ $rc -ne 0 ]; then
		why="the line exited $rc"
	elif [ ! -s "$tmp/out" ] && [ -z "$written" ]; then
		why="nothing written"
	elif grep -q -e Sanitizer -e 'rladv: .*:[0-9]*:' "$tmp/err"; then
		why="a diagnostic on stderr"
	fi
	if [ -z "$why" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL example ($why): $cmd"
		sed 's/^/    /' "$tmp/err" | head -5
	fi
	(cd "$tmp/run" && ls -1 | grep -v -x samples | xargs rm -rf)
done < "$tmp/examples"
[ $((pass + fail)) -ge 5 ] || { echo "FAIL: found only $((pass + fail)) examples"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
