// Line charts drawn as SVG, in the PNG charts' colours (chart.Palette,
// from the server's palette.js) and their dashes and shapes, so that a
// series reads the same on the page as in a run's summary.png.

import { palette } from "./palette.js";
import { figure, svg, table } from "./dom.js";

const dashes = ["", "6 3", "2 3", "8 3 2 3"];
const markers = ["circle", "square", "triangle", "diamond"];

function markerShape(kind, x, y, color, parent) {
  const r = 4.5;
  const look = { fill: color, stroke: "#000", "stroke-width": "1" };
  if (kind === "square") return svg("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, ...look }, parent);
  if (kind === "triangle") return svg("polygon", { points: `${x},${y - r - 1} ${x + r + 1},${y + r} ${x - r - 1},${y + r}`, ...look }, parent);
  if (kind === "diamond") return svg("polygon", { points: `${x},${y - r - 1} ${x + r + 1},${y} ${x},${y + r + 1} ${x - r - 1},${y}`, ...look }, parent);
  return svg("circle", { cx: x, cy: y, r, ...look }, parent);
}

// legendKey is a legend entry: a line (unless noLine) and a marker.
function legendKey(legend, text, shape, color, dash, noLine) {
  const li = document.createElement("li");
  const key = svg("svg", { viewBox: "0 0 28 12", "aria-hidden": "true" }, li);
  if (!noLine) svg("line", { x1: 0, x2: 28, y1: 6, y2: 6, stroke: color, "stroke-width": 2, "stroke-dasharray": dash }, key);
  markerShape(shape, 14, 6, color, key);
  li.appendChild(document.createTextNode(text));
  legend.appendChild(li);
}

// niceStep picks a tick step of 1, 2 or 5 times a power of ten.
function niceStep(range, n) {
  const raw = range / n;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

// lineChart draws series [{name, points: [{x, y, lo, hi, marker}], color,
// marker, shift, noLine}] against integer x (generations), or with
// opts.logX against x on a log scale ticked at the points' x (playouts);
// the legend sits below the plot, never over the lines. A series' color is
// its index in the palette (by default its own index, as Color(i) in the
// PNG charts). A series' shift (px) moves it sideways, keeping error bars
// at the same x apart. Options: percent, yMin, yMax, zero (a dashed line
// at 0), extraLegend ([[marker, text]]).
export function lineChart(parent, title, xLabel, yLabel, series, opts) {
  opts = opts || {};
  const box = figure(parent, title);
  const W = 480, H = 260, L = 56, R = 12, T = 10, B = 42;
  const pts = series.flatMap((s) => s.points);
  if (!pts.length) { const p = document.createElement("p"); p.textContent = "No data."; box.appendChild(p); return; }
  const tx = opts.logX ? Math.log10 : (x) => x;
  let x0 = Math.min(...pts.map((p) => tx(p.x))), x1 = Math.max(...pts.map((p) => tx(p.x)));
  const xticks0 = Math.ceil(x0), xticks1 = Math.floor(x1);
  // Margin, so that no marker sits on an axis: half a generation, or on a
  // log scale a factor of 1.5 at least.
  const margin = opts.logX ? Math.max(Math.log10(1.5), 0.08 * (x1 - x0)) : 0.5;
  x0 -= margin; x1 += margin;
  let y0 = Math.min(...pts.map((p) => p.lo ?? p.y)), y1 = Math.max(...pts.map((p) => p.hi ?? p.y));
  if (opts.yMin !== undefined) y0 = Math.min(y0, opts.yMin);
  if (opts.yMax !== undefined) y1 = Math.max(y1, opts.yMax);
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const ystep = niceStep(y1 - y0, 5);
  y0 = Math.floor(y0 / ystep) * ystep; y1 = Math.ceil(y1 / ystep) * ystep;
  const X = (x) => L + (tx(x) - x0) / (x1 - x0) * (W - L - R);
  const Y = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  const plot = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${title}: ${yLabel} by ${xLabel}; the table below gives the figures` });
  const el = (tag, attrs, text) => svg(tag, attrs, plot, text);
  for (let y = y0; y <= y1 + 1e-9; y += ystep) {
    el("line", { x1: L, x2: W - R, y1: Y(y), y2: Y(y), stroke: "#e4e4e4" });
    el("text", { x: L - 6, y: Y(y) + 4, "text-anchor": "end", "font-size": 11 }, opts.percent ? (100 * y).toFixed(0) + "%" : String(+y.toFixed(6)));
  }
  const xticks = [];
  if (opts.logX) xticks.push(...new Set(pts.map((p) => p.x).sort((a, b) => a - b)));
  else for (let x = xticks0, step = Math.max(1, Math.ceil((x1 - x0) / 10)); x <= xticks1; x += step) xticks.push(x); // integers only: generations
  for (const x of xticks) {
    el("line", { x1: X(x), x2: X(x), y1: H - B, y2: H - B + 4, stroke: "#000" });
    el("text", { x: X(x), y: H - B + 16, "text-anchor": "middle", "font-size": 11 }, String(x));
  }
  el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: "#000" });
  el("line", { x1: L, x2: L, y1: T, y2: H - B, stroke: "#000" });
  el("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "font-size": 12 }, xLabel);
  el("text", { x: 12, y: (T + H - B) / 2, "text-anchor": "middle", "font-size": 12, transform: `rotate(-90 12 ${(T + H - B) / 2})` }, yLabel);
  if (opts.zero && y0 < 0 && y1 > 0) el("line", { x1: L, x2: W - R, y1: Y(0), y2: Y(0), stroke: "#888", "stroke-dasharray": "4 3" });
  const legend = document.createElement("ul");
  legend.className = "legend";
  series.forEach((s, i) => {
    const color = palette[(s.color ?? i) % palette.length], dash = dashes[i % dashes.length], mk = s.marker || markers[i % markers.length];
    const ps = s.points.slice().sort((a, b) => a.x - b.x);
    const SX = (x) => X(x) + (s.shift || 0);
    for (const p of ps) if (p.lo !== undefined && p.hi !== undefined) {
      el("line", { x1: SX(p.x), x2: SX(p.x), y1: Y(p.lo), y2: Y(p.hi), stroke: color, "stroke-width": 2 });
      el("line", { x1: SX(p.x) - 4, x2: SX(p.x) + 4, y1: Y(p.lo), y2: Y(p.lo), stroke: color, "stroke-width": 2 });
      el("line", { x1: SX(p.x) - 4, x2: SX(p.x) + 4, y1: Y(p.hi), y2: Y(p.hi), stroke: color, "stroke-width": 2 });
    }
    if (ps.length > 1 && !s.noLine) el("polyline", { points: ps.map((p) => `${SX(p.x)},${Y(p.y)}`).join(" "), fill: "none", stroke: color, "stroke-width": 2, "stroke-dasharray": dash, "data-series": s.name });
    for (const p of ps) markerShape(p.marker || mk, SX(p.x), Y(p.y), color, plot);
    legendKey(legend, s.name, mk, color, dash, s.noLine);
  });
  box.appendChild(plot);
  for (const [shape, text] of opts.extraLegend || []) legendKey(legend, text, shape, "#fff", "", true);
  box.appendChild(legend);
  // The figures as a table, for screen readers and for reading off values.
  const det = document.createElement("details");
  const sum = document.createElement("summary");
  sum.textContent = "Figures";
  det.appendChild(sum);
  const t = document.createElement("table");
  const xs = [...new Set(pts.map((p) => p.x))].sort((a, b) => a - b);
  const f = (v) => opts.percent ? (100 * v).toFixed(1) + "%" : (+v.toFixed(3)).toString();
  table(t, [xLabel, ...series.map((s) => s.name)], xs.map((x) => [x, ...series.map((s) => {
    const p = s.points.find((q) => q.x === x);
    return p ? f(p.y) + (p.lo !== undefined ? ` [${f(p.lo)}, ${f(p.hi)}]` : "") : "";
  })]));
  det.appendChild(t);
  box.appendChild(det);
}
