#!/bin/sh
# help_synopsis.sh RLADV MANPAGE - rladv --help must match the man page:
# the usage lines equal the SYNOPSIS rendered from its mdoc source, and
# every long option is documented on both sides.
rladv=${1:-./rladv}
man=${2:-man/rladv.1}
"$rladv" --help > /tmp/rladv-help.$$ || { echo "rladv --help failed"; exit 1; }
python3 - "$man" /tmp/rladv-help.$$ <<'PY'
import re, sys
man = open(sys.argv[1]).read().split("\n")
help_ = open(sys.argv[2]).read()
MACROS = {"Fl", "Ar", "Cm", "Op", "Nm"}

def render(words):
    out, i = [], 0
    while i < len(words):
        w = words[i]
        if w == "Fl":
            n = 0
            while i < len(words) and words[i] == "Fl":
                n += 1; i += 1
            if i < len(words) and words[i] not in MACROS and words[i] != "|":
                out.append("-" * n + words[i]); i += 1
            else:
                out.append("-" * n)
            continue
        if w == "Ar":
            i += 1; args = []
            while i < len(words) and words[i] not in MACROS and words[i] != "|":
                args.append(words[i]); i += 1
            out.append(" ".join(args) if args else "file ...")
            continue
        if w == "Cm":
            out.append(words[i + 1]); i += 2; continue
        out.append(w); i += 1
    return " ".join(out)

syn, lines, on = [], [], False
for l in man:
    if l.startswith(".Sh "):
        on = l == ".Sh SYNOPSIS"; continue
    if not on or not l.startswith("."):
        continue
    words = l[1:].split()
    if words[0] == "Nm":
        lines.append(["rladv"]); continue
    if words[0] == "Op":
        lines[-1].append("[" + render(words[1:]) + "]")
    else:
        lines[-1].append(render(words))
syn = [" ".join(x) for x in lines]
usage = []
for l in help_.split("\n"):
    if not l.strip():
        break
    usage.append(" ".join(l.replace("usage:", "").split()))
fails = 0
if syn != usage:
    fails += 1
    print("FAIL synopsis: man page and --help differ")
    for a, b in zip(syn + [""] * 9, usage + [""] * 9):
        if a != b:
            print("  man:  " + a); print("  help: " + b)
helpopts = set(re.findall(r"--([a-z][a-z-]+)", help_))
manopts = set(re.findall(r"Fl Fl ([a-z][a-z-]+)", "\n".join(man)))
for o in sorted(helpopts - manopts):
    fails += 1; print("FAIL --%s is in --help but not in the man page" % o)
for o in sorted(manopts - helpopts):
    fails += 1; print("FAIL --%s is in the man page but not in --help" % o)
total = 1 + len(helpopts | manopts)
print("%d passed, %d failed" % (total - fails, fails))
sys.exit(1 if fails else 0)
PY
rc=$?
rm -f /tmp/rladv-help.$$
exit $rc
