// A game's review on the Replay view (POST /api/review, package analysis):
// the attackers' win chance ply by ply as a graph under the board, filled
// in as the server streams the plies, the labelled moves marked on the
// graph and in the move list, and at each ply the move's loss and the
// search's best line drawn as arrows. A click on the graph, or the arrow
// keys, go to a ply. Leaving the page, or starting another review, stops
// the one running (its request is aborted, and the server stops).

import * as api from "./api.js";
import { palette } from "./palette.js";
import { $, svg } from "./dom.js";

const W = 640, H = 170, L = 38, R = 10, T = 10, B = 24;
const marks = { // a label's look: colour, shape and the glyph of the move list
  inaccuracy: { color: palette[5], shape: "triangle", glyph: "?!" },
  mistake: { color: palette[4], shape: "square", glyph: "?" },
  blunder: { color: palette[3], shape: "diamond", glyph: "??" },
};

let opts = null;     // {board, goto(ply), onGame(ReplayedGame), current()}
let plies = [];      // the reviewed plies (analysis.Ply), by ply - 1
let total = 0;       // the game's plies
let summary = null;  // the review's summary (analysis.Review), once done
let controller = null; // aborts the review running

// initReview sets the review up; opts gives it the board, how to go to a
// ply, what to do with the game the review's answer starts with, and the
// ply shown.
export function initReview(o) {
  opts = o;
  const g = $("review-graph");
  g.addEventListener("click", (e) => {
    if (!total) return;
    const r = g.getBoundingClientRect();
    const x = (e.clientX - r.left) / r.width * W;
    opts.goto(Math.round((x - L) / (W - L - R) * total));
  });
}

// stopReview stops the review running, if any, and clears the graph.
export function stopReview() {
  if (controller) controller.abort();
  controller = null;
  plies = [];
  total = 0;
  summary = null;
  $("review").hidden = true;
  $("review-progress").hidden = true;
  $("review-graph").textContent = "";
  $("review-status").textContent = "";
}

// startReview reviews the game req names (a file's, or one played on the
// page: ReviewRequest) and shows it as the plies come.
export async function startReview(req) {
  stopReview();
  const mine = new AbortController();
  controller = mine;
  $("review").hidden = false;
  $("review-status").textContent = `Starting the review at ${req.playouts} playouts a position…`;
  try {
    await api.review(req, (e) => { if (controller === mine) onEvent(e); }, mine.signal);
  } catch (err) {
    if (controller === mine && err.name !== "AbortError") $("review-status").textContent = "Review: " + err.message;
  }
}

function onEvent(e) {
  if (e.game) {
    total = e.total;
    plies = new Array(total).fill(null);
    opts.onGame(e.game);
    $("review-progress").max = Math.max(total, 1);
    $("review-progress").hidden = false;
  }
  if (e.ply) plies[e.ply.ply - 1] = e.ply;
  if (e.review) summary = e.review;
  const done = plies.filter((p) => p).length;
  $("review-progress").value = done;
  if (e.error) $("review-status").textContent = `Review stopped: ${e.error}`;
  else if (summary) {
    $("review-progress").hidden = true;
    const acc = (s) => (s.accuracy == null ? "-" : s.accuracy.toFixed(1) + "%");
    const turn = summary.turn && summary.turn.ply ? `. The game turned at ply ${summary.turn.ply} (${summary.turn.mover} ${summary.turn.move})` : "";
    const side = (s) => `accuracy ${acc(s)}, ${s.blunders} blunders, ${s.mistakes} mistakes, ${s.inaccuracies} inaccuracies`;
    $("review-status").textContent = `Reviewed ${total} plies by ${summary.evaluator} at ${summary.playouts} playouts. ` +
      `Attackers: ${side(summary.attackers)}. Defenders: ${side(summary.defenders)}${turn}.`;
  } else if (e.ply || e.game) $("review-status").textContent = `Reviewing: ${done} of ${total} plies…`;
  draw();
  markMoves();
  reviewPly(opts.current());
}

// winAt returns the attackers' win chance after n plies, if reviewed.
function winAt(n) {
  if (n === 0) return plies[0] ? chance(plies[0].attackers_before) : null;
  return plies[n - 1] ? chance(plies[n - 1].attackers_after) : null;
}
const chance = (w) => 100 * (w.win + w.draw / 2);

const X = (n) => L + n / Math.max(total, 1) * (W - L - R);
const Y = (c) => T + (1 - c / 100) * (H - T - B);

// draw draws the graph: the known win chances, the labelled moves and the
// cursor at the ply shown.
function draw() {
  const g = $("review-graph");
  g.textContent = "";
  g.setAttribute("viewBox", `0 0 ${W} ${H}`);
  g.setAttribute("aria-valuemax", String(total));
  for (const c of [0, 50, 100]) {
    svg("line", { x1: L, x2: W - R, y1: Y(c), y2: Y(c), stroke: c === 50 ? "#888" : "#ddd", "stroke-dasharray": c === 50 ? "4 3" : "" }, g);
    svg("text", { x: L - 4, y: Y(c) + 4, "text-anchor": "end", "font-size": 11 }, g, String(c));
  }
  svg("text", { x: L, y: H - 6, "font-size": 11 }, g, "0");
  svg("text", { x: W - R, y: H - 6, "font-size": 11, "text-anchor": "end" }, g, `ply ${total}`);
  // The line, broken where plies are still to come.
  let run = [];
  const flush = () => { if (run.length > 1) svg("polyline", { points: run.join(" "), fill: "none", stroke: palette[0], "stroke-width": 2, class: "win" }, g); run = []; };
  for (let n = 0; n <= total; n++) {
    const c = winAt(n);
    if (c === null) flush(); else run.push(`${X(n).toFixed(1)},${Y(c).toFixed(1)}`);
  }
  flush();
  for (const p of plies) {
    if (!p || !p.label) continue;
    const m = marks[p.label], x = X(p.ply), y = Y(chance(p.attackers_after)), r = 5;
    const look = { fill: m.color, stroke: "#000", "stroke-width": 1, class: "mark", "data-ply": p.ply, "data-label": p.label };
    if (m.shape === "triangle") svg("polygon", { points: `${x},${y - r - 1} ${x + r + 1},${y + r} ${x - r - 1},${y + r}`, ...look }, g);
    else if (m.shape === "square") svg("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, ...look }, g);
    else svg("polygon", { points: `${x},${y - r - 2} ${x + r + 2},${y} ${x},${y + r + 2} ${x - r - 2},${y}`, ...look }, g);
  }
  const n = opts.current();
  svg("line", { x1: X(n), x2: X(n), y1: T, y2: H - B, stroke: "#000", "stroke-width": 1.5, class: "cursor" }, g);
}

// markMoves marks the labelled moves in the move list.
function markMoves() {
  [...$("replay-moves").children].forEach((li, i) => {
    const p = plies[i];
    for (const l in marks) li.classList.toggle("label-" + l, !!p && p.label === l);
    li.dataset.label = p && p.label ? p.label : "";
    li.title = p ? `${p.mover}: ${p.win_before.toFixed(1)} → ${p.win_after.toFixed(1)}` + (p.label ? `, ${p.label}; best ${p.best}` : "") : "";
    li.setAttribute("aria-label", li.dataset.move + (p && p.label ? `, ${p.label}` : ""));
  });
}

// reviewPly shows what the review says at ply n: the graph's cursor, the
// best line from the position shown as numbered arrows, and the move just
// played's loss.
export function reviewPly(n) {
  if (!total) return;
  const g = $("review-graph");
  g.setAttribute("aria-valuenow", String(n));
  const cursor = g.querySelector(".cursor");
  if (cursor) { cursor.setAttribute("x1", X(n)); cursor.setAttribute("x2", X(n)); }
  const next = plies[n]; // the move played from here: its best line
  const line = next ? next.pv.slice(0, 4) : [];
  opts.board.arrows(line.map((m, i) => {
    const [from, to] = m.split("x")[0].split("-");
    return { from, to, weight: 1 - i * 0.2, label: String(i + 1) };
  }));
  const p = plies[n - 1];
  let text = "";
  if (p) {
    text = `Ply ${p.ply}, ${p.mover} ${p.move}: win chance ${p.win_before.toFixed(1)} → ${p.win_after.toFixed(1)}` +
      (p.loss > 0 ? `, lost ${p.loss.toFixed(1)}` : "") + (p.label ? ` (${p.label}; best ${p.best})` : "") + ".";
  }
  if (next) text += ` Best here: ${next.pv.join(" ")} (arrows 1 to ${line.length}).`;
  $("review-ply").textContent = text;
  g.setAttribute("aria-valuetext", text || `ply ${n}`);
}
