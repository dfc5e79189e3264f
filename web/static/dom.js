// Small helpers the page's modules share: elements by id, SVG elements,
// tables and select options.

export const $ = (id) => document.getElementById(id);

const SVGNS = "http://www.w3.org/2000/svg";

// svg makes an SVG element with the given attributes (and text), appended
// to parent when one is given.
export function svg(tag, attrs, parent, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// table fills a <table> with a header row, rows of cells and a caption.
export function table(el, head, rows, caption) {
  el.textContent = "";
  if (caption) el.createCaption().textContent = caption;
  const tr = el.createTHead().insertRow();
  for (const h of head) { const th = document.createElement("th"); th.textContent = h; th.scope = "col"; tr.appendChild(th); }
  const body = el.createTBody();
  for (const r of rows) { const row = body.insertRow(); for (const c of r) row.insertCell().textContent = c; }
}

// addOptions adds an option to a select for each [text, value].
export function addOptions(select, items) {
  for (const [text, value] of items) select.add(new Option(text, value));
}

// figure wraps the elements in a chart box, with a heading when title is
// given, and appends it to parent.
export function figure(parent, title, ...children) {
  const fig = document.createElement("figure");
  fig.className = "chart";
  if (title) {
    const h = document.createElement("h3");
    h.textContent = title;
    fig.appendChild(h);
  }
  for (const c of children) fig.appendChild(c);
  parent.appendChild(fig);
  return fig;
}
