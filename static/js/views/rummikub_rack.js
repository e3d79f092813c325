// One's own Rummikub rack: sorted by colour or by number, or in the player's own order once they
// drag a tile to another place on it (at any time, not only on their turn).

import { arranged, moveTo } from "../hand_order.js";
import { t } from "../i18n.js";
import { sortRack } from "../rules/rummikub_melds.js";
import { h } from "./dom.js";
import { insertionIndex } from "./drag.js";
import { rovingFocus } from "./roving.js";
import { tileElement } from "./tiles.js";

const SORT_KEY = "meldhall.rack_sort";

function savedSort() {
  try {
    return localStorage.getItem(SORT_KEY) === "number" ? "number" : "colour";
  } catch {
    return "colour";
  }
}

export function createRack({ redraw }) {
  let sortBy = savedSort();
  // The player's own order (tile ids), or null while a sort is chosen.
  let order = null;
  let shown = [];

  function sortButton(by) {
    return h(
      "button.small",
      {
        type: "button",
        id: `sort-${by}`,
        "aria-pressed": String(order === null && sortBy === by),
        onclick: () => {
          sortBy = by;
          order = null;
          try {
            localStorage.setItem(SORT_KEY, by);
          } catch {
            // Sorted for this page only.
          }
          redraw();
        },
      },
      t(`rk.sort_${by}`),
    );
  }

  return {
    // A rack tile dropped on the rack at `point`: it moves there.
    reorder(tile, rackElement, point) {
      const others = [...rackElement.querySelectorAll(".rack-tiles .tile")].filter((el) => el.dataset.tile !== tile);
      order = moveTo(shown, tile, insertionIndex(others, point));
      redraw();
    },
    // ctx: {rack, interactive (my turn), selected, hinted (Set), canReturn, onSelect, onTarget,
    // onKey}
    element(ctx) {
      const { rack, interactive, selected } = ctx;
      shown = arranged(order, rack) ?? sortRack(rack, sortBy);
      const tiles = shown.map((tile) =>
        tileElement(tile, {
          drag: `tile:${tile}`,
          onclick: () => ctx.onSelect(tile),
          selected: selected === tile,
          hinted: ctx.hinted.has(tile),
        }),
      );
      const element = h(
        "section.rk-rack",
        {
          id: "rack",
          dataset: { drop: "rack" },
          tabindex: interactive && ctx.canReturn ? 0 : null,
          "aria-label": t("rk.your_rack", { n: rack.length }),
          onkeydown: (event) => ctx.onKey(event, "rack"),
          onclick: (event) => {
            if (!event.target.closest(".tile, button")) ctx.onTarget("rack");
          },
        },
        h(
          "div.rack-head",
          {},
          h("span", {}, t("rk.your_rack", { n: rack.length })),
          sortButton("colour"),
          sortButton("number"),
          order ? h("span.badge", { id: "own-order" }, t("rk.own_order")) : null,
        ),
        h("div.rack-tiles", {}, tiles),
      );
      rovingFocus(element.querySelector(".rack-tiles"), tiles, tiles.find((el) => el.dataset.tile === selected) ?? null);
      return element;
    },
  };
}
