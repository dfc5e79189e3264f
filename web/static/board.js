// The board widget the four views share: squares, pieces, marks and move
// arrows, drawn from a position in notation and a rule set's BoardInfo.

import { svg } from "./dom.js";

// parsePosition reads position notation into {size, cells: {square: "a"|"d"|"k"}, toMove}.
export function parsePosition(text) {
  const [board, side] = text.split(" ");
  const rows = board.split("/");
  const size = rows.length;
  const cells = {};
  rows.forEach((row, i) => {
    const rank = size - i;
    let file = 0;
    for (let j = 0; j < row.length; j++) {
      const c = row[j];
      if (c >= "0" && c <= "9") {
        let n = c;
        while (j + 1 < row.length && row[j + 1] >= "0" && row[j + 1] <= "9") n += row[++j];
        file += parseInt(n, 10);
      } else {
        cells[squareName(file, rank)] = c;
        file++;
      }
    }
  });
  return { size, cells, toMove: side === "a" ? "attackers" : "defenders" };
}

function squareName(file, rank) { return String.fromCharCode(97 + file) + rank; }
function fileOf(sq) { return sq.charCodeAt(0) - 97; }
function rankOf(sq) { return parseInt(sq.slice(1), 10); }
const pieceNames = { a: "attacker", d: "defender", k: "king" };

// pieceSVG draws a piece in the sides' colours (style.css), which differ
// in shape as well: triangles attack, discs defend, the king wears a crown.
function pieceSVG(kind) {
  const s = svg("svg", { viewBox: "0 0 100 100", class: "piece", "aria-hidden": "true" });
  if (kind === "a") {
    svg("polygon", { points: "50,6 94,90 6,90", fill: "var(--attacker)", stroke: "#000", "stroke-width": "5" }, s);
  } else if (kind === "d") {
    svg("circle", { cx: 50, cy: 50, r: 40, fill: "var(--defender)", stroke: "#000", "stroke-width": "5" }, s);
  } else {
    svg("circle", { cx: 50, cy: 50, r: 44, fill: "var(--defender)", stroke: "#000", "stroke-width": "5" }, s);
    svg("polygon", { points: "22,70 22,34 36,50 50,26 64,50 78,34 78,70", fill: "var(--king)", stroke: "#000", "stroke-width": "4" }, s);
  }
  return s;
}

// Board draws a position into el. With interactive set, it is one Tab stop
// whose arrow keys move a cursor between squares; Enter or Space calls
// onActivate(square, viaKeyboard), Escape onEscape().
export class Board {
  constructor(el, opts) {
    this.el = el;
    this.opts = opts || {};
    this.size = 0;
    this.cursor = null;
    this.cells = {};
    el.addEventListener("keydown", (e) => this.key(e));
    el.addEventListener("click", (e) => {
      const c = e.target.closest(".cell");
      if (c && this.opts.onActivate) this.opts.onActivate(c.dataset.square, false);
    });
  }
  build(info) {
    this.el.dataset.variant = info.variant;
    if (this.size === info.size && this.throne === info.throne) return;
    this.size = info.size;
    this.throne = info.throne;
    this.el.textContent = "";
    this.el.style.gridTemplateColumns = `repeat(${info.size}, 1fr)`;
    this.el.style.gridTemplateRows = `repeat(${info.size}, 1fr)`;
    this.cells = {};
    const special = new Set([info.throne, ...info.corners]);
    for (let rank = info.size; rank >= 1; rank--) {
      const row = document.createElement("div");
      row.className = "row";
      row.setAttribute("role", "row");
      for (let file = 0; file < info.size; file++) {
        const sq = squareName(file, rank);
        const c = document.createElement("div");
        c.className = "cell" + (special.has(sq) ? " special" : "");
        c.dataset.square = sq;
        c.setAttribute("role", "gridcell");
        c.tabIndex = -1;
        const coord = document.createElement("span");
        coord.className = "coord";
        coord.textContent = sq;
        coord.setAttribute("aria-hidden", "true");
        c.appendChild(coord);
        row.appendChild(c);
        this.cells[sq] = c;
      }
      this.el.appendChild(row);
    }
    this.setCursor(this.cursor && this.cells[this.cursor] ? this.cursor : squareName(0, info.size), false);
  }
  // render shows position (notation) on the board info (a BoardInfo)
  // describes, with marks: {legal: Set, selected, captures: [], last: [from, to]}.
  render(info, position, marks) {
    this.build(info);
    const p = parsePosition(position);
    marks = marks || {};
    const legal = marks.legal || new Set();
    const caps = new Set(marks.captures || []);
    const last = new Set(marks.last || []);
    for (const sq in this.cells) {
      const c = this.cells[sq];
      const piece = p.cells[sq] || "";
      if (c.dataset.piece !== piece) {
        const old = c.querySelector("svg.piece");
        if (old) old.remove();
        if (piece) c.appendChild(pieceSVG(piece));
        c.dataset.piece = piece;
      }
      c.classList.toggle("legal", legal.has(sq));
      c.classList.toggle("selected", marks.selected === sq);
      c.classList.toggle("captured", caps.has(sq));
      c.classList.toggle("last", last.has(sq));
      let label = sq + ", " + (piece ? pieceNames[piece] : "empty");
      if (sq === info.throne) label += ", throne";
      if (info.corners.includes(sq)) label += ", corner";
      if (marks.selected === sq) label += ", selected";
      if (legal.has(sq)) label += ", legal move";
      if (caps.has(sq)) label += ", captured by the last move";
      c.setAttribute("aria-label", label);
    }
  }
  setCursor(sq, focus) {
    if (this.cursor && this.cells[this.cursor]) {
      this.cells[this.cursor].tabIndex = -1;
      this.cells[this.cursor].classList.remove("cursor");
    }
    this.cursor = sq;
    const c = this.cells[sq];
    if (!c) return;
    c.tabIndex = this.opts.interactive ? 0 : -1;
    if (this.opts.interactive) c.classList.add("cursor");
    if (focus) c.focus();
  }
  focus() { if (this.cells[this.cursor]) this.cells[this.cursor].focus(); }
  key(e) {
    if (!this.opts.interactive || !this.cursor) return;
    let f = fileOf(this.cursor), r = rankOf(this.cursor);
    switch (e.key) {
      case "ArrowLeft": f = Math.max(0, f - 1); break;
      case "ArrowRight": f = Math.min(this.size - 1, f + 1); break;
      case "ArrowUp": r = Math.min(this.size, r + 1); break;
      case "ArrowDown": r = Math.max(1, r - 1); break;
      case "Home": f = 0; break;
      case "End": f = this.size - 1; break;
      case "Enter": case " ":
        e.preventDefault();
        if (this.opts.onActivate) this.opts.onActivate(this.cursor, true);
        return;
      case "Escape":
        if (this.opts.onEscape) this.opts.onEscape();
        return;
      default: return;
    }
    e.preventDefault();
    this.setCursor(squareName(f, r), true);
  }
  // arrows draws moves as arrows over the board: [{from, to, weight, label}].
  arrows(list) {
    let layer = this.el.parentElement.querySelector("svg.arrows");
    if (!layer) layer = svg("svg", { class: "arrows", "aria-hidden": "true" }, this.el.parentElement);
    const n = this.size;
    layer.setAttribute("viewBox", `0 0 ${n * 10} ${n * 10}`);
    layer.textContent = "";
    const defs = svg("defs", {}, layer);
    defs.innerHTML = '<marker id="head" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3" markerHeight="3" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#000"/></marker>';
    const centre = (sq) => [fileOf(sq) * 10 + 5, (n - rankOf(sq)) * 10 + 5];
    const max = Math.max(...list.map((a) => a.weight), 1e-9);
    list.forEach((a, i) => {
      const [x1, y1] = centre(a.from), [x2, y2] = centre(a.to);
      svg("line", { x1, y1, x2, y2, stroke: i === 0 ? "#000" : "#444", "stroke-opacity": String(0.35 + 0.6 * a.weight / max),
        "stroke-width": String(0.8 + 2.2 * a.weight / max), "marker-end": "url(#head)" }, layer);
      // The label beside the arrow's middle, clear of its head.
      const horizontal = y1 === y2;
      svg("text", { x: (x1 + x2) / 2 + (horizontal ? 0 : 2.6), y: (y1 + y2) / 2 + (horizontal ? -1.6 : 1.2), "text-anchor": "middle",
        "font-size": "3.4", "font-weight": "bold", fill: "#000", stroke: "#fff", "stroke-width": "0.6", "paint-order": "stroke" }, layer, a.label);
    });
  }
}
