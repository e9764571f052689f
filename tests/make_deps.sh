#!/bin/sh
# make_deps.sh - a plain make never installs anything; make deps does.
#
# Builds a copy of the tree (Makefile, src/, scripts/, fuzz/*.mk) in a
# temporary directory with a PATH whose apt-get, apt, dpkg and sudo record
# being called, and whose id says root (an installer that only runs as
# root would try here):
#   1. make builds ./rladv and calls none of them (the plain build's objects
#      are copied along, all but one, to spare the time: make still
#      compiles, links and runs every prerequisite a build runs);
#   2. with libcjson missing (a pkg-config that finds no libcjson), make
#      fails with one line naming what to run, and calls none of them;
#   3. make deps, with libcjson still missing, calls apt-get: the shims
#      would have seen an installer in 1 or 2.
# The copy is built as on its own, whatever make runs this.
unset MAKEFLAGS MFLAGS MAKELEVEL
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() {
	fail=$((fail + 1))
	echo "FAIL $1"
	if [ -s "$tmp/err" ]; then sed 's/^/    /' "$tmp/err" | tail -5; fi
}
# none_called WHAT: no shim was called.
none_called() {
	if [ -s "$tmp/called" ]; then
		no "$1 called $(head -1 "$tmp/called")"
	else
		ok
	fi
}

mkdir "$tmp/tree" "$tmp/tree/fuzz" "$tmp/shim" "$tmp/nocjson"
cp -Rp Makefile src scripts "$tmp/tree/" && cp -p fuzz/*.mk "$tmp/tree/fuzz/" ||
    exit 3
if [ -f build/main.o ]; then
	mkdir "$tmp/tree/build"
	cp -p build/*.o build/*.d "$tmp/tree/build/" 2>/dev/null
	rm -f "$tmp/tree/build/main.o"
fi
for tool in apt-get apt aptitude dpkg sudo; do
	cat > "$tmp/shim/$tool" <<EOF
#!/bin/sh
echo "$tool \$*" >> "$tmp/called"
exit 1
EOF
done
realid=$(command -v id)
cat > "$tmp/shim/id" <<EOF
#!/bin/sh
[ "\$1" = -u ] && { echo 0; exit 0; }
exec "$realid" "\$@"
EOF
# pkg-config that finds everything but libcjson.
realpc=$(command -v pkg-config) ||
    { echo "SKIP make_deps: no pkg-config (make deps installs it)"; exit 0; }
cat > "$tmp/nocjson/pkg-config" <<EOF
#!/bin/sh
for a; do [ "\$a" = libcjson ] && exit 1; done
exec "$realpc" "\$@"
EOF
chmod +x "$tmp/shim/"* "$tmp/nocjson/pkg-config"
# shimmed [-nocjson] COMMAND...: COMMAND in the copy, with the shims.
shimmed() {
	p=$tmp/shim
	[ "$1" = -nocjson ] && { p=$tmp/nocjson:$p; shift; }
	(cd "$tmp/tree" && PATH="$p:$PATH" "$@")
}

# 1. A plain build.
: > "$tmp/called"
if ! shimmed make -j2 >"$tmp/out" 2>"$tmp/err"; then
	no "make failed"
elif [ ! -x "$tmp/tree/rladv" ]; then
	no "make built no ./rladv"
else
	ok
fi
none_called make

# 2. A library missing.
: > "$tmp/called"
rm -rf "$tmp/tree/build" "$tmp/tree/rladv"
shimmed -nocjson make -j2 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
	no "make without libcjson exits 0"
elif [ "$(grep -c '^rladv: ' "$tmp/err")" -ne 1 ] ||
    ! grep -q '^rladv: missing libcjson-dev; run as root: make deps$' \
    "$tmp/err"; then
	no "make without libcjson: not the one line to run"
else
	ok
fi
none_called "make without libcjson"

# 3. make deps installs.
: > "$tmp/called"
shimmed -nocjson make deps >"$tmp/out" 2>"$tmp/err"
if grep -q '^apt-get install -y libcjson-dev' "$tmp/called"; then
	ok
else
	no "make deps did not call apt-get install (the shims see nothing)"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
