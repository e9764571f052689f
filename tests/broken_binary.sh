#!/bin/sh
# broken_binary.sh - the test scripts fail on a broken rladv.  Each script
# below is run on stand-ins that look like rladv from outside: one writes
# a plausible record and exits 1, one exits 0 having written nothing; a
# script that passes on either could not catch a broken build.  A new
# test script that takes the binary gets a line here.
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/fails" "$tmp/silent"
cat > "$tmp/fails/rladv" <<'EOF'
#!/bin/sh
echo '{"prompt_id": "p", "reward": 1, "logprobs": [-1], "advantage": 0, "loss_weight": 1}'
exit 1
EOF
printf '#!/bin/sh\nexit 0\n' > "$tmp/silent/rladv"
chmod +x "$tmp/fails/rladv" "$tmp/silent/rladv"

pass=0 fail=0
# must_fail WHAT COMMAND...: COMMAND must exit other than 0.
must_fail() {
	what=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		fail=$((fail + 1))
		echo "FAIL $what passes on a broken rladv"
		sed 's/^/    /' "$tmp/out" | tail -3
	else
		pass=$((pass + 1))
	fi
}

for kind in fails silent; do
	b=$tmp/$kind/rladv
	must_fail "man_examples.sh ($kind)" sh tests/man_examples.sh "$b" \
	    man/rladv.1
	must_fail "help_synopsis.sh ($kind)" sh tests/help_synopsis.sh "$b" \
	    man/rladv.1
	must_fail "conformance check.py ($kind)" \
	    python3 tests/conformance/check.py "$b"
	must_fail "io.sh ($kind)" sh tests/io.sh "$b"
	must_fail "hostile.sh ($kind)" sh tests/hostile.sh "$b" man/rladv.1
	must_fail "skip_random.sh ($kind)" sh tests/skip_random.sh "$b"
	must_fail "realdata.sh ($kind)" sh tests/realdata.sh "$b"
	must_fail "frameworks.sh ($kind)" sh tests/frameworks.sh "$b" \
	    man/rladv.1
	must_fail "oracle.py ($kind)" python3 tests/oracle.py "$b" 50
	must_fail "scale.py ($kind)" python3 tests/scale.py "$b" 20
	must_fail "presets reference.py --random ($kind)" \
	    python3 tests/presets/reference.py --random "$b" 1
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
