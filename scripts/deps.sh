#!/bin/sh
# deps.sh - makes sure the libraries rladv builds with are installed.
# Installs them with apt-get when run as root on Debian; otherwise prints
# the one line to run.  Found through pkg-config, as the Makefile uses it.
# "deps.sh fuzz": clang and its libFuzzer runtime, for make fuzz.
# "deps.sh cxx": g++, which compiles the CUDA backend against the CPU
# emulation of its runtime for make check (tests/cuda_emu).
pkgs="libcjson-dev zlib1g-dev check pkg-config"
have() {
	command -v pkg-config >/dev/null 2>&1 &&
	    pkg-config --exists libcjson zlib check
}
if [ "$1" = fuzz ]; then
	pkgs="clang libclang-rt-dev"
	have() {
		command -v clang >/dev/null 2>&1 &&
		    echo 'int LLVMFuzzerTestOneInput(const char *d, long n)
		    { (void)d; (void)n; return 0; }' |
		    clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null
	}
fi
if [ "$1" = cxx ]; then
	pkgs="g++"
	have() {
		command -v g++ >/dev/null 2>&1
	}
fi
have && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "rladv: installing $pkgs" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y $pkgs >/dev/null ||
	    { apt-get update >/dev/null && apt-get install -y $pkgs >/dev/null; }
	have && exit 0
fi
echo "rladv: missing build dependencies; run:" >&2
echo "    sudo apt-get install -y $pkgs" >&2
exit 1
