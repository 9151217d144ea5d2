#!/bin/bash
# t-timeline.sh - contrib/gasnet-timeline renders a 4-rank job's trace
# (t_trace 5 3 1000 through gasnetrun, the bypass off: every peer over
# UDP): its JSON must hold lanes 0..3, every AM paired (no send unmatched),
# exactly 5 client requests (handler 200) from each rank r to r+1 and 5
# replies (handler 201) back, 3 barrier spans per rank, one broadcast span
# per rank; its SVG must hold one group per lane and as many arrow paths
# as the JSON has messages; the PNG and the zooming HTML page must exist.
# timeout: 120
set -u
cd "$TOP/tests/tools" || exit 1
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  echo "SKIPPED: /usr/bin/python3 has no matplotlib (contrib/install-deps.sh --tests installs python3-matplotlib)"; exit 77
fi
fails=0
d=$(mktemp -d "${TMPDIR:-/tmp}/t-timeline.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT
out=$(GASNET_SUPERNODE_MAXSIZE=1 GASNET_TRACEFILE="$d/tr-%" "$GASNETRUN" -n 4 ./t_trace 5 3 1000 2>&1); rc=$?
echo "job: exit $rc, $(echo "$out" | grep -c 't_trace: ok') ranks ok"
[ $rc = 0 ] || { echo "FAIL: the job"; echo "$out"; exit 1; }
tl=$TOP/contrib/gasnet-timeline
"$tl" -o "$d/job.svg" --json "$d/job.json" --html "$d/job.html" "$d"/tr-* || fails=$((fails + 1))
"$tl" -o "$d/job.png" --title "t-timeline" "$d"/tr-* || fails=$((fails + 1))
/usr/bin/python3 - "$d" <<'PY' || fails=$((fails + 1))
import json, sys, os
import xml.etree.ElementTree as ET
d = sys.argv[1]
m = json.load(open(os.path.join(d, "job.json")))
bad = 0
def check(what, want, got):
    global bad
    ok = want == got
    print("%s: expected %s, got %s: %s" % (what, want, got, "ok" if ok else "FAIL"))
    bad += not ok
check("lanes", [0, 1, 2, 3], m["lanes"])
check("unmatched sends", 0, m["unmatched_sends"])
for r in range(4):
    nx = (r + 1) % 4
    check("rank %d: requests 200 to %d" % (r, nx), 5,
          sum(1 for a in m["arrows"] if a["from"] == r and a["to"] == nx and a["handler"] == 200))
    check("rank %d: replies 201 from %d" % (r, nx), 5,
          sum(1 for a in m["arrows"] if a["from"] == nx and a["to"] == r and a["handler"] == 201))
    check("rank %d: client AMs to others" % r, 0,
          sum(1 for a in m["arrows"] if a["from"] == r and a["handler"] in (200, 201)
              and a["to"] not in ((r + 1) % 4, (r + 3) % 4)))
    check("rank %d: barrier spans, broadcast spans" % r, (3, 1),
          (sum(1 for s in m["spans"] if s["rank"] == r and s["kind"] == "barrier"),
           sum(1 for s in m["spans"] if s["rank"] == r and s["kind"] == "collective"
               and s["label"] == "gex_Coll_BroadcastNB")))
svg = ET.parse(os.path.join(d, "job.svg")).getroot()
ns = "{http://www.w3.org/2000/svg}"
groups = {g.get("id"): g for g in svg.iter(ns + "g") if g.get("id")}
check("SVG lane groups", ["lane-0", "lane-1", "lane-2", "lane-3"],
      sorted(k for k in groups if k.startswith("lane-")))
paths = sum(len(list(groups[k].iter(ns + "path"))) for k in ("arrows-request", "arrows-reply"))
check("SVG arrow paths = JSON messages", len(m["arrows"]), paths)
html = open(os.path.join(d, "job.html")).read()
check("HTML: the SVG inside, the zoom script", (True, True), ("<svg" in html, "addEventListener('wheel'" in html))
check("PNG signature", b"\x89PNG", open(os.path.join(d, "job.png"), "rb").read(4))
sys.exit(bad)
PY
[ $fails = 0 ] && echo "t-timeline: all passed"
exit $fails
