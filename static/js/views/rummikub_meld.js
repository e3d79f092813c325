// One meld on the Rummikub table: its tiles (the other players' last plays marked), the split
// handles and the grip to join it to another, whether it is valid and why not, and the choice
// of what an open joker stands for.

import { t } from "../i18n.js";
import { readMeld } from "../rules/rummikub_melds.js";
import { h } from "./dom.js";
import { tileElement, tileName } from "./tiles.js";

// Why a meld is not valid, in the page's words (read here as the server reads it). A meld that
// reads well here but not on the server has a joker declared as a face that does not fit.
export function whyInvalid(meld) {
  const local = readMeld(meld.tiles);
  if (local.error) {
    // A run's reason names its tiles as the page does ("red 2"), never by code ("R2").
    const named = Object.entries(local.detail).map(([key, value]) => [key, local.error.startsWith("run_") && typeof value === "string" ? tileName(value) : value]);
    return t(`rk.why.${local.error}`, Object.fromEntries(named));
  }
  return Object.keys(meld.declared ?? {}).length ? t("rk.why.joker_declared") : (meld.reason ?? "");
}

function meldMark(meld) {
  if (meld.valid) {
    return h("span.meld-mark.ok", { title: t(`rk.kind.${meld.kind}`) }, "✓ ", t(`rk.kind.${meld.kind}`), " · ", t("common.points", { n: meld.value }));
  }
  return h("span.meld-mark.bad", {}, "✗ ", whyInvalid(meld));
}

// A joker whose meaning is open (a group missing several colours) can be fixed by hand.
function jokerChoices(meld, act) {
  const open = Object.entries(meld.jokers ?? {}).filter(([joker, faces]) => faces.length > 1 || meld.declared?.[joker]);
  return open.map(([joker, faces]) => {
    const declared = meld.declared?.[joker] ?? "";
    const choices = [...new Set([...faces, ...(declared ? [declared] : [])])];
    return h(
      "label.joker-choice",
      {},
      t("rk.joker_is"),
      " ",
      h(
        "select",
        { dataset: { joker }, onchange: (event) => act({ type: "declare", joker, as: event.target.value || null }) },
        h("option", { value: "", selected: !declared }, t("rk.joker_any")),
        choices.map((face) => h("option", { value: face, selected: face === declared }, tileName(`${face}a`))),
      ),
    );
  });
}

// ctx: {interactive (the player's turn), canTouch (this meld may change now), selected (a tile
// id), fresh (tiles laid this turn), marked (others' last plays and moves), act, select(tile),
// tapTarget(index), placeAt(index, event) (the selected tile where the tap was), onKey(event,
// index)}
export function meldElement(meld, index, ctx) {
  const { interactive, canTouch, selected, act } = ctx;
  const tiles = meld.tiles.map((tile) =>
    tileElement(tile, {
      drag: canTouch ? `tile:${tile}` : null,
      // With another tile selected, a tap on a tile of this meld places it there.
      onclick: interactive
        ? (event) => (selected && selected !== tile && !meld.tiles.includes(selected) ? ctx.placeAt(index, event) : ctx.select(tile))
        : null,
      selected: selected === tile,
      fresh: ctx.fresh.has(tile),
      lastMove: ctx.marked.has(tile),
      stands: meld.jokers?.[tile]?.length === 1 ? meld.jokers[tile][0] : (meld.declared?.[tile] ?? null),
    }),
  );
  const target = interactive && selected;
  // A meld is cut before its selected tile, with a button of a finger's size under the meld:
  // a handle between every two tiles would be too slim to tap or push the tiles apart.
  const at = canTouch && selected ? meld.tiles.indexOf(selected) : -1;
  const split =
    at > 0
      ? h("button.split", { type: "button", title: t("rk.split_here"), "aria-label": t("rk.split_here"), onclick: () => ctx.split(index, at) }, "✂")
      : null;
  // The grip keeps its room whenever the meld is on a live table, so the table does not shift
  // when the player's turn begins; it shows (and takes a drag) only when the meld may move.
  const grip = ctx.live
    ? h(
        "button.grip",
        {
          type: "button",
          class: canTouch && !selected ? "" : "resting",
          dataset: canTouch && !selected ? { drag: `meld:${index}` } : {},
          title: t("rk.drag_meld"),
          "aria-label": t("rk.drag_meld"),
          "aria-hidden": canTouch && !selected ? null : "true",
          tabindex: canTouch && !selected ? null : -1,
        },
        "⠿",
      )
    : null;
  return h(
    "div.meld",
    {
      class: meld.valid ? "valid" : "invalid",
      dataset: { drop: interactive ? `meld:${index}` : null, meld: index },
      tabindex: target ? -1 : null,
      role: target ? "button" : null,
      "aria-label": target ? t("rk.put_here", { n: index + 1 }) : null,
      onclick: interactive
        ? (event) => {
            if (!event.target.closest(".tile, .split, .grip")) ctx.tapTarget(index);
          }
        : null,
      onkeydown: interactive ? (event) => ctx.onKey(event, index) : null,
    },
    h("div.meld-tiles", {}, tiles),
    // The split takes the grip's room (the grip rests while a tile is selected): the meld keeps
    // its size whichever shows.
    h("div.meld-foot", {}, split ?? grip, h("span.meld-no", { "aria-hidden": "true" }, String(index + 1)), meldMark(meld)),
    canTouch ? jokerChoices(meld, act) : null,
  );
}
