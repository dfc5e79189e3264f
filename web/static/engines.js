// The views' player menus: the players GET /api/networks lists, with the
// option of each rule set's own network ("own") naming the file that plays
// the rule set chosen, and disabled for a rule set that has none (the
// server would refuse it).

import { addOptions } from "./dom.js";

const OWN = "own";
const BUILTIN = "builtin";

// fillEngines offers the networks in a select and chooses the server's
// default, the second it lists (the built-in searcher comes first). The
// option a person chooses is kept in the select's data-chosen, so that a
// rule set without an own network falls back to the built-in searcher
// for as long as it is chosen, not for good.
export function fillEngines(select, networks) {
  addOptions(select, networks.map((n) => [n.label, n.id]));
  if (networks.length > 1) select.value = networks[1].id;
  select.dataset.chosen = select.value;
  select.addEventListener("change", () => { select.dataset.chosen = select.value; });
}

// showOwn names, in the select's "own" option, the network file that
// plays the rule set called variant, or says that none does and disables
// the option; variant "" (a rule-set file's, or not known yet) keeps the
// general label, and the server decides.
export function showOwn(select, networks, variant) {
  const own = networks.find((n) => n.id === OWN);
  const option = [...select.options].find((o) => o.value === OWN);
  if (!own || !option) return;
  const file = variant ? own.files[variant] : "";
  option.disabled = Boolean(variant) && !file;
  option.textContent = !variant ? own.label : file ? `own network (${file})` : `own network (none ships for ${variant})`;
  if (option.disabled && select.value === OWN) select.value = BUILTIN;
  else if (!option.disabled && select.dataset.chosen === OWN) select.value = OWN;
}
