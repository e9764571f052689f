#!/bin/sh
# help_synopsis.sh RLADV MANPAGE - the option table, as rladv --help and
# rladv CMD --help print it, against the man page: the usage lines equal
# the SYNOPSIS rendered from the mdoc source (all of them, and each
# command's own); each option row (short name, long name, argument or
# choices) equals its .It entry, in the subsection of the same title; every
# option named in a command's usage lines is one that the command takes;
# no --help says SPEC.
rladv=${1:-./rladv}
man=${2:-man/rladv.1}
tmp=${TMPDIR:-/tmp}/rladv-help.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
for c in all compute stats diff index; do
	if [ $c = all ]; then set -- --help; else set -- $c --help; fi
	"$rladv" "$@" >"$tmp/$c" ||
		{ echo "FAIL rladv $* exits $?"; exit 1; }
done
python3 - "$man" "$tmp" <<'PY'
import os, re, sys
man = open(sys.argv[1]).read().split("\n")
helps = {c: open(os.path.join(sys.argv[2], c)).read()
         for c in ("all", "compute", "stats", "diff", "index")}
MACROS = {"Fl", "Ar", "Cm", "Op", "Nm", "Ns", "Oo", "Oc"}
fails = checks = 0

def check(ok, msg):
    global fails, checks
    checks += 1
    if not ok:
        fails += 1
        print("FAIL " + msg)

def render(words):
    """mdoc words as the text they print, roughly: enough for options."""
    out, i, glue = [], 0, False
    def put(s):
        nonlocal glue
        if glue and out:
            out[-1] += s
        else:
            out.append(s)
        glue = False
    while i < len(words):
        w = words[i]
        if w == "Fl":
            n = 0
            while i < len(words) and words[i] == "Fl":
                n += 1; i += 1
            if i < len(words) and words[i] not in MACROS and \
                    words[i] not in "|,":
                put("-" * n + words[i]); i += 1
            else:
                put("-" * n)
            continue
        if w == "Ar":
            i += 1; args = []
            while i < len(words) and words[i] not in MACROS and \
                    words[i] not in "|,":
                args.append(words[i]); i += 1
            put(" ".join(args) if args else "file ...")
            continue
        if w == "Cm":
            put(words[i + 1]); i += 2; continue
        if w == "Ns":
            glue = True; i += 1; continue
        if w == "Op":
            put("[" + render(words[i + 1:]) + "]"); break
        put(w); i += 1
    return " ".join(out)

def squeeze(s):
    return re.sub(r"\s+", "", s)

# SYNOPSIS, one line per .Nm
lines, on = [], False
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

def usage(text):
    """The usage lines, each wrapped one joined again."""
    out = []
    for l in text.split("\n"):
        if not l.strip():
            break
        check(len(l) < 80, "--help usage line of %d columns: %s" % (len(l), l))
        l = " ".join(l.replace("usage:", "").split())
        if out and not l.startswith("rladv"):
            out[-1] += " " + l
        else:
            out.append(l)
    return out

def rows(text):
    """{long name: left column} of a --help."""
    out = {}
    for l in text.split("\n"):
        m = re.match(r"^ {2,6}(-\S.*?)(?:  |$)", l)
        if m:
            name = re.search(r"--([a-z][a-z-]*)", m.group(1)).group(1)
            out[name] = m.group(1)
    return out

check(usage(helps["all"]) == syn, "rladv --help usage lines differ from "
      "SYNOPSIS:\n  man:  %s\n  help: %s" % (syn, usage(helps["all"])))
for c in ("compute", "stats", "diff", "index"):
    mine = [s for s in syn if s.split()[1].strip("[]") == c]
    got = usage(helps[c])
    check(got == mine, "rladv %s --help usage %s, SYNOPSIS %s" %
          (c, got, mine))
    taken = rows(helps[c])
    for s in mine:
        for o in re.findall(r"(?<![\w-])--([a-z][a-z-]*)", s):
            check(o in taken, "rladv %s: --%s is in its SYNOPSIS but "
                  "rladv %s --help does not list it" % (c, o, c))
    for o in taken:
        check(o in rows(helps["all"]), "rladv %s --help lists --%s, "
              "rladv --help does not" % (c, o))

# .It entries that start with Fl, by subsection
its, sect = {}, None
for l in man:
    if l.startswith(".Ss "):
        sect = l[4:].strip()
    elif l.startswith(".Sh "):
        sect = None
    elif l.startswith(".It Fl") and sect:
        left = render(l[4:].split())
        name = re.search(r"--([a-z][a-z-]*)", left).group(1)
        its[name] = (sect, left)

# --help's rows, by section title
hrows, title = {}, None
for l in helps["all"].split("\n"):
    if re.match(r"^\S.*:$", l) and not l.startswith("usage"):
        title = l[:-1]
    for name, left in rows(l).items():
        hrows[name] = (title, left)
for name, (title, left) in sorted(hrows.items()):
    if name not in its:
        check(False, "--%s is in --help but has no .It in the man page"
              % name)
        continue
    msect, mleft = its[name]
    check(squeeze(mleft) == squeeze(left), "--%s: --help says \"%s\", "
          "the man page \"%s\"" % (name, left, mleft))
    check(msect == title, "--%s: --help puts it in \"%s\", the man page "
          "in \"%s\"" % (name, title, msect))
for name in sorted(set(its) - set(hrows)):
    check(False, "--%s is in the man page but not in --help" % name)
for c, text in helps.items():
    check("SPEC" not in text, "rladv %s --help says SPEC" % c)
print("%d passed, %d failed" % (checks - fails, fails))
sys.exit(1 if fails else 0)
PY
