"""Draws the coverage table of scripts/bench-coverage.sh as an SVG (standard library only).

One panel per interval method; in each, coverage against n (30, 100, 433, 2,000) for every
population (labels x prevalence x kappa), the 95% target as a line and 93% dashed (below it the
report calls the interval under-covering).

Usage: python3 coverage-plot.py coverage.json coverage.svg
"""
import json
import sys

cells = json.load(open(sys.argv[1]))
methods = []
for c in cells:
    if c["method"] not in methods:
        methods.append(c["method"])
ns = sorted({c["n"] for c in cells})
W, H, PAD = 300, 220, 40
cols = 3
rows = (len(methods) + cols - 1) // cols
lo, hi = 0.5, 1.0
colour = {(2, 0.5): "#1f77b4", (2, 0.85): "#ff7f0e", (3, 0.5): "#2ca02c", (3, 0.85): "#d62728"}
shape = {0.4: "circle", 0.78: "square", 0.9: "triangle"}
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * W}" height="{rows * H + 60}" font-family="sans-serif" font-size="11">',
       f'<rect width="100%" height="100%" fill="white"/>']
for m, method in enumerate(methods):
    ox, oy = (m % cols) * W, (m // cols) * H
    x = lambda i: ox + PAD + i * (W - PAD - 15) / (len(ns) - 1)
    y = lambda v: oy + 20 + (hi - max(lo, min(hi, v))) / (hi - lo) * (H - PAD - 20)
    out.append(f'<text x="{ox + PAD}" y="{oy + 14}" font-weight="bold">{method}</text>')
    out.append(f'<rect x="{ox + PAD}" y="{y(hi)}" width="{W - PAD - 15}" height="{y(lo) - y(hi)}" fill="none" stroke="#999"/>')
    for v in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        out.append(f'<text x="{ox + PAD - 4}" y="{y(v) + 4}" text-anchor="end">{v:.1f}</text>')
    out.append(f'<line x1="{ox + PAD}" x2="{ox + W - 15}" y1="{y(0.95)}" y2="{y(0.95)}" stroke="black"/>')
    out.append(f'<line x1="{ox + PAD}" x2="{ox + W - 15}" y1="{y(0.93)}" y2="{y(0.93)}" stroke="black" stroke-dasharray="4 3"/>')
    for i, n in enumerate(ns):
        out.append(f'<text x="{x(i)}" y="{y(lo) + 14}" text-anchor="middle">{n}</text>')
    for c in cells:
        if c["method"] != method:
            continue
        p = c["population"]
        cx, cy = x(ns.index(c["n"])) + (list(shape).index(p["kappa"]) - 1) * 5, y(c["coverage"])
        fill = colour[(p["categories"], p["prevalence"])]
        s = shape[p["kappa"]]
        if s == "circle":
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="{fill}"/>')
        elif s == "square":
            out.append(f'<rect x="{cx - 3:.1f}" y="{cy - 3:.1f}" width="6" height="6" fill="{fill}"/>')
        else:
            out.append(f'<path d="M{cx:.1f},{cy - 4:.1f} L{cx + 4:.1f},{cy + 3:.1f} L{cx - 4:.1f},{cy + 3:.1f} Z" fill="{fill}"/>')
ly = rows * H + 15
legend = [f"{q} labels, accept {p}" for (q, p) in colour]
for i, ((key, fill), text) in enumerate(zip(colour.items(), legend)):
    out.append(f'<rect x="{20 + i * 170}" y="{ly}" width="10" height="10" fill="{fill}"/><text x="{34 + i * 170}" y="{ly + 9}">{text}</text>')
out.append(f'<text x="20" y="{ly + 32}">kappa 0.4: circle, 0.78: square, 0.9: triangle. Line: 95% target; dashed: 93%. x: rows (n); values below 0.5 drawn at 0.5.</text>')
out.append("</svg>")
open(sys.argv[2], "w").write("\n".join(out))
