#!/bin/sh
# deps.sh [-n] GROUP... - makes sure the packages a build or a test needs
# are installed.  Groups:
#   build   what make builds rladv with (libcjson, zlib, found through
#           pkg-config as the Makefile finds them)
#   test    what make check adds: the Check library for the unit suites,
#           g++ for the CUDA backend on its CPU emulation, python3 for the
#           conformance and agreement checkers
#   fuzz    clang and its libFuzzer runtime, for fuzzing for time
#   isal    Intel ISA-L (libisal-dev), which inflates and deflates gzip
#           2-4 times faster than zlib; optional: without it rladv
#           builds with zlib alone, so it is installed when possible and
#           its absence is never an error
# Without -n (make deps, make deps-fuzz) it installs what is missing with
# apt-get when run as root on Debian, and otherwise prints the one line to
# run.  With -n (every other make target) it never installs: it prints the
# one line to run and exits 1.  Exit 0 when nothing is missing.

dry=0
if [ "$1" = -n ]; then
	dry=1
	shift
fi

missing=
optional=
target="make deps"
# need PACKAGE TEST...: PACKAGE is missing unless TEST succeeds.
need() {
	pkg=$1
	shift
	"$@" >/dev/null 2>&1 || case " $missing " in
	*" $pkg "*) ;;
	*) missing="${missing:+$missing }$pkg";;
	esac
}
# want PACKAGE TEST...: the same for an optional package.
want() {
	pkg=$1
	shift
	"$@" >/dev/null 2>&1 || optional="${optional:+$optional }$pkg"
}
pc() {
	command -v pkg-config && pkg-config --exists "$1"
}
fuzzer() {
	command -v clang &&
	    echo 'int LLVMFuzzerTestOneInput(const char *d, long n)
	    { (void)d; (void)n; return 0; }' |
	    clang -x c -fsanitize=fuzzer -o /dev/null -
}

for group in "$@"; do
	case $group in
	build)
		need pkg-config command -v pkg-config
		need libcjson-dev pc libcjson
		need zlib1g-dev pc zlib
		;;
	test)
		need check pc check
		need g++ command -v g++
		need python3 command -v python3
		;;
	isal)
		want libisal-dev pc libisal
		;;
	fuzz)
		target="make deps-fuzz"
		need clang command -v clang
		need libclang-rt-dev fuzzer
		;;
	*)
		echo "usage: deps.sh [-n] build|test|isal|fuzz..." >&2
		exit 2
		;;
	esac
done
[ -z "$missing$optional" ] && exit 0
[ -z "$missing" ] && [ $dry = 1 ] && exit 0

if [ $dry = 1 ]; then
	echo "rladv: missing $missing; run as root: $target" >&2
	exit 1
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	if [ -n "$missing" ]; then
		echo "rladv: installing $missing" >&2
		# shellcheck disable=SC2086
		apt-get install -y $missing >/dev/null ||
		    { apt-get update >/dev/null &&
		    apt-get install -y $missing >/dev/null; } ||
		    { echo "rladv: apt-get install -y $missing failed" >&2
		    exit 1; }
	fi
	if [ -n "$optional" ]; then
		echo "rladv: installing $optional" >&2
		# shellcheck disable=SC2086
		apt-get install -y $optional >/dev/null 2>&1 ||
		    echo "rladv: could not install $optional; gzip goes" \
		    "through zlib alone" >&2
	fi
	exec sh "$0" -n "$@"
fi
if [ -z "$missing" ]; then
	echo "rladv: optional $optional is not installed, so gzip goes" \
	    "through zlib alone; to install it: sudo apt-get install -y" \
	    "$optional" >&2
	exit 0
fi
echo "rladv: missing $missing; run: sudo apt-get install -y $missing" >&2
exit 1
