// The page's four views, as tabs: one shows at a time. A view's module may
// ask to hear when its view is shown (whenShown).

import { $ } from "./dom.js";

export const views = ["play", "replay", "analysis", "runs"];
const shown = {}; // view name: function to call when it is shown

export function whenShown(name, fn) { shown[name] = fn; }

export function showView(name) {
  for (const v of views) {
    $("view-" + v).hidden = v !== name;
    $("tab-" + v).setAttribute("aria-selected", v === name ? "true" : "false");
  }
  if (shown[name]) shown[name]();
}

export function initViews() {
  for (const v of views) $("tab-" + v).addEventListener("click", () => showView(v));
}
