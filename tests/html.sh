#!/bin/sh
# tests/html.sh - the pages of rladv stats --html and rladv diff --html.
#
# usage: sh tests/html.sh ./rladv [DOCS]
#
# First without a browser: the page is one file that runs no script and
# fetches nothing, --html - writes the same bytes to standard output, and
# the errors (a page that cannot be created, --html - with --json, --html
# with --outputs or inside --a, a run that fails) say what to do and leave
# no half page.
#
# Then each page is rendered by headless Chromium.  A copy of the page
# gets a checking script (the page itself has none, and its Content
# Security Policy would refuse one): for every chart it counts the marks
# that drew a non-empty box inside the chart's plot area, against the
# number the page says the chart holds, and the tick and axis labels that
# drew; the verdicts are read back with --dump-dom.  A screenshot of each
# sample page itself must then show coloured pixels in each chart's plot
# area.
# A page whose stratum labels are hostile (markup, quotes, a control
# character, long) must keep them as text and run no script of theirs.
# With DOCS, the screenshots of the two sample pages are copied there as
# stats.png and diff.png.
#
# Chromium is Debian's chromium, installed with apt-get when missing and
# this runs as root; when it cannot be had the browser part prints
# "SKIP: ..." and passes nothing.  The last line says "N passed, M
# failed"; the status is 1 when any test failed.

RLADV=${1:-./rladv}
case $RLADV in
/*) ;;
*) RLADV=$(pwd)/$RLADV ;;
esac
if [ ! -x "$RLADV" ]; then
	echo "html.sh: $RLADV is not an executable" >&2
	exit 2
fi
DOCS=$2
if [ -n "$DOCS" ]; then
	mkdir -p "$DOCS" && DOCS=$(cd "$DOCS" && pwd) || exit 2
fi
SAMPLES=$(cd "$(dirname "$0")/.." && pwd)/samples
T=$(mktemp -d "${TMPDIR:-/tmp}/rladv-html.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 2' INT TERM HUP
cd "$T" || exit 2

pass=0
fail=0

ok() {
	pass=$((pass + 1))
}

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

# expect_rc STATUS NAME COMMAND...: the command exits with STATUS; its
# output is kept in out and err.
expect_rc() {
	want=$1
	name=$2
	shift 2
	"$@" >out 2>err
	got=$?
	if [ "$got" -eq "$want" ]; then
		ok
	else
		bad "$name: exit $got, expected $want ($(head -c 300 err))"
	fi
}

# has FILE TEXT NAME: FILE contains TEXT (fixed string).
has() {
	if grep -qF -- "$2" "$1"; then ok; else bad "$3: no \"$2\" in $1"; fi
}

# hasnt FILE TEXT NAME
hasnt() {
	if grep -qF -- "$2" "$1"; then bad "$3: \"$2\" in $1"; else ok; fi
}

# ---- The pages ------------------------------------------------------

# A log whose stratum labels try to break out of the page, in the shape
# of the sample (a search agent's rollouts, one step field per batch).
python3 - <<'PY' || exit 2
import json, random
random.seed(7)
labels = ['<b>hard</b> & "x" \'y\' \u0001 </svg><script>alert(1)</script>',
    'easy \u00e9\u20ac\U0001F600', 'x' * 200]
with open("hostile.jsonl", "w") as f:
    for step in (1, 2, 3):
        for g in range(6):
            for r in range(4):
                n = random.randint(3, 40)
                f.write(json.dumps({"prompt_id": "hotpot-%d-%d" % (step, g),
                    "response_id": r, "step": step,
                    "difficulty": labels[(g + r) % 3],
                    "reward": float(random.random() < 0.5),
                    "logprobs": [round(-random.random(), 6)
                        for _ in range(n)],
                    "mask": [1] * n}) + "\n")
PY

# By a relative name: the page's title shows it, and docs/*.png are made
# from these pages, so no path of this machine is in them.
mkdir -p samples && cp "$SAMPLES/search_agent.jsonl" samples/ || exit 2
SA=samples/search_agent.jsonl
expect_rc 0 "stats --html" "$RLADV" stats --batch-groups 4 --html stats.html \
    "$SA"
has out "rladv stats:" "stats --html still prints the report"
expect_rc 0 "diff --html" "$RLADV" diff --html diff.html --a "-a grpo" \
    --b "-a stratified -g balanced" "$SA"
has out "correlation" "diff --html still prints the report"
expect_rc 0 "stats --html, hostile labels" "$RLADV" stats \
    --stratum-key difficulty --batch-key step --html hstats.html hostile.jsonl
expect_rc 0 "diff --html, hostile labels" "$RLADV" diff \
    --stratum-key difficulty --html hdiff.html --a "-a grpo" \
    --b "-a stratified" hostile.jsonl

# Charts each page must hold: stats 4 per step + the on-policy losses +
# 2 strata + 4 of Stratified GRPO's per stratum + 2 lengths; diff all
# records + 5 strata (tool_calls 0-4) + 2 per stratum + 2 lengths.
for pc in stats.html:13 diff.html:10 hstats.html:13 hdiff.html:8; do
	p=${pc%%:*}
	n=$(grep -c '<svg class="chart"' "$p")
	if [ "$n" -eq "${pc#*:}" ]; then ok; else
		bad "$p: $n charts, expected ${pc#*:}"; fi
	# One file: nothing fetched, nothing run.
	for x in '<script' 'src=' 'href=' 'url(' '@import' 'https:'; do
		hasnt "$p" "$x" "$p is self-contained"
	done
	n=$(grep -o 'http:[^"]*' "$p" | grep -vc '^http://www.w3.org/2000/svg$')
	if [ "$n" -eq 0 ]; then ok; else bad "$p: $n http: addresses"; fi
	has "$p" "default-src 'none'" "$p forbids fetches and scripts"
done
hasnt hstats.html "</svg><script>" "hostile labels escaped"
has hstats.html "&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt;" \
    "hostile labels kept as text"
has hstats.html '\u0001' "a control character shown as \\u0001"

# --html -: the page on standard output, the same bytes.
"$RLADV" stats --batch-groups 4 --html - "$SA" >stdout.html 2>err
if cmp -s stdout.html stats.html; then ok; else
	bad "stats --html - differs from stats --html FILE"; fi

# ---- Errors ---------------------------------------------------------

expect_rc 3 "--html in a missing directory" "$RLADV" stats \
    --html nodir/p.html "$SA"
has err "nodir/p.html: cannot create" "the page's path named"
# Fails before reading: the input does not exist either, and is not named.
expect_rc 3 "--html fails first" "$RLADV" stats --html nodir/p.html \
    missing.jsonl
hasnt err "missing.jsonl" "the page is opened before the log is read"
expect_rc 2 "--html - with --json" "$RLADV" stats --json --html - "$SA"
has err "give the page a file" "--html - with --json says what to type"
expect_rc 2 "diff --html - with --json" "$RLADV" diff --json --html - \
    --a "-a grpo" --b "-a san" "$SA"
expect_rc 2 "diff --outputs --html" "$RLADV" diff --outputs --html o.html \
    "$SA" "$SA"
has err "not of rladv diff --outputs" "--outputs with --html"
expect_rc 2 "--html inside --a" "$RLADV" diff --a "-a grpo --html a.html" \
    --b "-a san" "$SA"
has err "not of the option strings" "--html inside --a is refused"
expect_rc 2 "compute --html" "$RLADV" --html c.html "$SA"
has err "not of rladv compute" "compute --html is refused"
if [ -e a.html ] || [ -e o.html ] || [ -e c.html ]; then
	bad "a refused --html left a file"; else ok; fi
printf '{"prompt_id": "p", "reward": "high", "logprobs": [-0.5]}\n' > bad.jsonl
expect_rc 1 "stats --html on bad data" "$RLADV" stats --html b.html bad.jsonl
if [ -e b.html ]; then bad "a failed run left its page"; else ok; fi
expect_rc 1 "diff --html on bad data" "$RLADV" diff --html b.html \
    --a "-a grpo" --b "-a san" bad.jsonl
if [ -e b.html ]; then bad "a failed diff left its page"; else ok; fi
# Only the page's own regular file is removed, not a link and its target.
echo keep > target.html
ln -s target.html link.html
expect_rc 1 "stats --html LINK on bad data" "$RLADV" stats --html link.html \
    bad.jsonl
if [ -L link.html ] && [ -f target.html ]; then ok; else
	bad "a failed run removed a symbolic link given as the page"; fi
if [ -w /dev/full ]; then
	expect_rc 3 "--html /dev/full" "$RLADV" stats --html /dev/full "$SA"
	has err "/dev/full: write error" "a write error names the page"
fi

# ---- In a browser ---------------------------------------------------

finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ] && [ "$(id -u)" = 0 ] &&
    command -v apt-get >/dev/null 2>&1; then
	echo "html.sh: installing chromium" >&2
	export DEBIAN_FRONTEND=noninteractive
	# Other tests of make check may hold dpkg's lock: wait for it.
	apt="apt-get -o DPkg::Lock::Timeout=300"
	$apt install -y chromium >apt.log 2>&1 ||
	    { $apt update >>apt.log 2>&1 &&
	    $apt install -y chromium >>apt.log 2>&1; }
	CHROMIUM=$(command -v chromium)
fi
if [ -z "$CHROMIUM" ]; then
	echo "SKIP: the pages in a browser: no chromium, and it could not be" \
	    "installed (as root: apt-get install chromium)"
	finish
fi

# The checking script, added to a copy of each page.
cat >check.js <<'JS'
<script>
(function () {
	var out = [], seen = 0;
	document.querySelectorAll("svg.chart").forEach(function (svg) {
		var want = +svg.getAttribute("data-marks");
		var pl = svg.getAttribute("data-plot").split(" ").map(Number);
		var box = svg.getBoundingClientRect();
		var drawn = 0, outside = 0, texts = 0;
		svg.querySelectorAll(".mark").forEach(function (m) {
			var b = m.getBBox();
			if (b.width > 0 || b.height > 0)
				drawn++;
			/* 4: a dot's radius and a pixel */
			if (b.x < pl[0] - 4 || b.y < pl[1] - 4 ||
			    b.x + b.width > pl[0] + pl[2] + 4 ||
			    b.y + b.height > pl[1] + pl[3] + 4)
				outside++;
		});
		svg.querySelectorAll("text").forEach(function (t) {
			var b = t.getBBox();
			if (b.width > 0 && b.height > 0)
				texts++;
		});
		var good = want > 0 && drawn === want && outside === 0 &&
		    texts >= 6 && box.width >= 400 && box.height >= 200;
		out.push((good ? "ok " : "FAIL ") + svg.parentNode.id +
		    " marks " + drawn + "/" + want + " outside " + outside +
		    " texts " + texts + " plot " +
		    Math.round(box.left + scrollX + pl[0]) + " " +
		    Math.round(box.top + scrollY + pl[1]) + " " +
		    Math.round(pl[2]) + " " + Math.round(pl[3]));
	});
	document.querySelectorAll("title").forEach(function (t) {
		/* "<\/", as a script ends at its first end tag */
		if (t.textContent.indexOf("<\/svg><script>alert(1)<\/script>") >= 0)
			seen++;
	});
	out.push("scripts " + document.scripts.length);
	out.push("hostile-text " + seen);
	out.push("height " + document.documentElement.scrollHeight);
	var pre = document.createElement("pre");
	pre.id = "rladv-check";
	pre.textContent = out.join("\n");
	document.body.appendChild(pre);
})();
</script>
JS

run=0
browse() {
	run=$((run + 1))
	timeout 300 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
	    --disable-quic --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync --hide-scrollbars \
	    --force-device-scale-factor=1 --user-data-dir="$T/profile.$run" \
	    "$@" 2>>chromium.log
}

for p in stats diff hstats hdiff; do
	# the script goes just before </body>
	grep -v 'Content-Security-Policy' "$p.html" | awk '/^<\/body>$/ {
		while ((getline l < "check.js") > 0) print l } { print }' \
	    > "$p.check.html"
	if ! grep -q 'rladv-check' "$p.check.html"; then
		bad "$p: the checking script was not added"; continue; fi
	browse --window-size=1000,1000 --dump-dom "file://$T/$p.check.html" \
	    > "$p.dom" || { bad "$p: chromium --dump-dom failed ($(tail -c 300 \
	    chromium.log))"; continue; }
	sed -n '/<pre id="rladv-check">/,/<\/pre>/p' "$p.dom" |
	    sed 's/<[^>]*>//g' > "$p.verdicts"
	charts=$(grep -c '<svg class="chart"' "$p.html")
	n=$(grep -c '^ok ' "$p.verdicts")
	if [ "$n" -eq "$charts" ] && [ "$charts" -gt 0 ]; then ok; else
		bad "$p: $n of $charts charts drew:"
		grep -v '^ok ' "$p.verdicts" | sed 's/^/    /'
		[ -s "$p.verdicts" ] ||
		    echo "    (no verdicts: the checking script did not run)"
	fi
	has "$p.verdicts" "scripts 1" "$p runs only the checking script"
	case $p in
	h*) has "$p.verdicts" "hostile-text " "$p: hostile labels counted"
	    if grep -q '^hostile-text [1-9]' "$p.verdicts"; then ok; else
		bad "$p: the hostile label is not whole in a tooltip"; fi ;;
	esac
	# The screenshots: of the sample pages (the hostile ones are about
	# text, which the verdicts have checked).
	case $p in h*) continue ;; esac
	h=$(sed -n 's/^height //p' "$p.verdicts")
	browse --window-size=1000,"${h:-2000}" --screenshot="$T/$p.png" \
	    "file://$T/$p.html" >/dev/null ||
	    { bad "$p: chromium --screenshot failed"; continue; }
	# Each chart's plot area shows its marks' colours: pixels whose
	# channels differ by 40 or more (grid, axes and text are grey).
	python3 - "$p.png" "$p.verdicts" <<'PY' && ok || bad "$p: screenshot"
import struct, sys, zlib

def png(path):
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    i, idat = 8, b""
    while i < len(d):
        n, = struct.unpack(">I", d[i:i + 4])
        t, c = d[i + 4:i + 8], d[i + 8:i + 8 + n]
        i += 12 + n
        if t == b"IHDR":
            w, h, depth, ct, _, _, lace = struct.unpack(">IIBBBBB", c)
            assert depth == 8 and ct in (2, 6) and lace == 0, "PNG kind"
        elif t == b"IDAT":
            idat += c
    raw, bpp = zlib.decompress(idat), 3 if ct == 2 else 4
    stride, rows, prev, p = w * bpp, [], bytearray(w * bpp), 0
    for y in range(h):
        f, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif f == 4:
                q = a + b - c
                pa, pb, pc = abs(q - a), abs(q - b), abs(q - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else
                    b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

w, h, bpp, rows = png(sys.argv[1])
bad = 0
for l in open(sys.argv[2]):
    f = l.split()
    if not f or f[0] != "ok":
        continue
    x0, y0, pw, ph = map(int, f[-4:])
    ink = 0
    for y in range(max(y0, 0), min(y0 + ph, h)):
        r = rows[y]
        for x in range(max(x0, 0), min(x0 + pw, w)):
            px = r[x * bpp:x * bpp + 3]
            ink += max(px) - min(px) >= 40
    if ink < 10:
        print("    %s: %d coloured pixels in its plot area" % (f[1], ink))
        bad += 1
sys.exit(bad != 0)
PY
	if [ -n "$DOCS" ]; then
		cp "$p.png" "$DOCS/$p.png" || bad "cannot copy $p.png to $DOCS"
	fi
done
finish
