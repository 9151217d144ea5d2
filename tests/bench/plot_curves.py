#!/usr/bin/python3
"""plot_curves.py - round trip and bandwidth against message size, as PNGs.

  tests/bench/plot_curves.py OUTDIR LABEL=FILE...

FILE: the output of tests/bench/am_pingpong or tcp_bench (their tables,
as printed); LABEL names it in the legend (e.g. udp=am.txt tcp=tcp.txt).
Writes OUTDIR/rtt.png (median AM round trip, Medium and Long, against
size) and OUTDIR/bw.png (one-way flood, MB/s, against size), each with the
raw probe measured in the same run beside: the raw ping-pong as a dashed
line (it is measured at 16 B only), the raw TCP stream as a dotted one.
Drawing: matplotlib (Debian's python3-matplotlib). tests/bench/curves.sh
runs the benchmarks and this.
"""
import os
import re
import sys

RTT = re.compile(r"^AM (Medium|Long) (\d+) B\s+([\d.]+)\s+([\d.]+)\s*$")
RAW_RTT = re.compile(r"^(raw UDP busy-poll|raw TCP ping-pong) 16 B\s+([\d.]+)\s+([\d.]+)")
FLOOD = re.compile(r"^AM (Medium|Long) (\d+) B\s+(\d+)\s+([\d.]+)\s*$")
RAW_STREAM = re.compile(r"^(raw TCP stream, [a-z ]+rd)\s+([\d.]+)\s*$")


def parse(path):
    d = {"rtt": {}, "bw": {}, "raw_rtt": [], "raw_bw": []}
    section = "rtt"
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("one-way flood"):
            section = "bw"
        m = RTT.match(line) if section == "rtt" else FLOOD.match(line)
        if m and int(m.group(2)) > 0:
            val = float(m.group(4))  # rtt: the median; flood: MB/s
            d[section].setdefault(m.group(1), []).append((int(m.group(2)), val))
            continue
        m = RAW_RTT.match(line)
        if m:
            d["raw_rtt"].append((m.group(1), float(m.group(3))))
        m = RAW_STREAM.match(line)
        if m:
            d["raw_bw"].append((m.group(1), float(m.group(2))))
    return d


def plot(runs, what, ylabel, title, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (label, d) in enumerate(runs):
        c = colours[i % len(colours)]
        for cat, style in (("Medium", "o-"), ("Long", "s--")):
            pts = sorted(d[what].get(cat, []))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=c, ms=4,
                        label="%s AM %s" % (label, cat))
        for name, v in d["raw_rtt" if what == "rtt" else "raw_bw"]:
            ax.axhline(v, color=c, ls=":" if what == "bw" else "-.", lw=1,
                       label="%s %s%s" % (label, name, " 16 B (median)" if what == "rtt" else ""))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    runs = [(a.split("=", 1)[0], parse(a.split("=", 1)[1])) for a in sys.argv[2:]]
    for label, d in runs:
        if not d["rtt"] and not d["bw"]:
            sys.exit("plot_curves.py: %s: no AM table found" % label)
    plot(runs, "rtt", "round trip, median (us)", "AM round trip against size", os.path.join(outdir, "rtt.png"))
    plot(runs, "bw", "one-way flood (MB/s)", "AM bandwidth against size", os.path.join(outdir, "bw.png"))
    print("plot_curves.py: wrote %s and %s" % (os.path.join(outdir, "rtt.png"), os.path.join(outdir, "bw.png")))


if __name__ == "__main__":
    main()
