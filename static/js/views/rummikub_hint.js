// A Rummikub hint: the rack tiles the suggested play lays, and the panel showing the table it
// makes with the buttons to apply or dismiss it.

import { listText, t } from "../i18n.js";
import { h } from "./dom.js";
import { tileElement, tileName } from "./tiles.js";

// The rack tiles the suggested play puts on `table` (it replaces any steps taken so far).
export function hintPlaces(suggestion, table) {
  if (suggestion?.type !== "play") return new Set();
  const before = new Set(table.flatMap((meld) => meld.tiles));
  return new Set(suggestion.table.flat().filter((tile) => !before.has(tile)));
}

export function hintPanel(suggestion, placed, { apply, dismiss }) {
  const parts = [h("h3", {}, t("hint.title"))];
  if (suggestion.type === "play") {
    const names = listText([...placed].map(tileName));
    parts.push(
      h("p", { id: "hint-text" }, t("hint.rk.play", { n: placed.size, tiles: names })),
      h("p.muted", {}, t("hint.rk.table")),
      h(
        "div.hint-table",
        {},
        suggestion.table.map((meld) =>
          h("div.meld.valid", {}, h("div.meld-tiles", {}, meld.map((tile) => tileElement(tile, { hinted: placed.has(tile) })))),
        ),
      ),
    );
  } else {
    parts.push(h("p", { id: "hint-text" }, t(suggestion.type === "pass" ? "hint.rk.pass" : "hint.rk.draw")));
  }
  parts.push(
    h(
      "div.buttons",
      {},
      h("button.primary", { type: "button", id: "apply-hint", onclick: apply }, t("hint.apply")),
      h("button.quiet", { type: "button", id: "dismiss-hint", onclick: dismiss }, t("hint.dismiss")),
    ),
  );
  return h("section.hint-panel", { id: "hint-panel", role: "status" }, parts);
}
