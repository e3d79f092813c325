// Rummikub tiles drawn with CSS; the joker's face is a small inline SVG.

import { t } from "../i18n.js";
import { decode, isJoker } from "../rules/rummikub_melds.js";
import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

function jokerFace() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("joker-face");
  const parts = [
    ["circle", { cx: 12, cy: 12, r: 10, fill: "none", "stroke-width": 2 }],
    ["circle", { cx: 8.5, cy: 9.5, r: 1.6, stroke: "none" }],
    ["circle", { cx: 15.5, cy: 9.5, r: 1.6, stroke: "none" }],
    ["path", { d: "M7 14.5 Q12 19 17 14.5", fill: "none", "stroke-width": 2, "stroke-linecap": "round" }],
  ];
  for (const [name, attributes] of parts) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
    svg.append(node);
  }
  return svg;
}

// A shape per colour for the colour-blind aid (shown when the setting is on): the colours then
// differ in form too, not only in hue.
const SHAPES = { R: "●", B: "■", K: "▲", Y: "◆" };

export function tileName(tile) {
  if (isJoker(tile)) return t("tile.joker");
  const { colour, number } = decode(tile);
  return t("tile.name", { colour: t(`colour.${colour}`), number });
}

// What a joker stands for, drawn as a small tile face: its number in its colour (never a code
// such as "K8", which reads as a king).
function standsFor(face) {
  const decoded = decode(face);
  if (!decoded) return null;
  return h(
    "span.stands",
    { class: `c-${decoded.colour}`, "aria-hidden": "true" },
    h("span.shape", {}, SHAPES[decoded.colour]),
    String(decoded.number),
  );
}

function label(tile, options) {
  if (options.label) return options.label;
  const name = tileName(tile);
  return options.stands ? t("tile.joker_as", { tile: tileName(options.stands) }) : name;
}

// options: {drag, selected, onclick, stands (a joker's meaning, a face like "K8"), fresh, hinted,
// lastMove, label}
export function tileElement(tile, options = {}) {
  const joker = isJoker(tile);
  const decoded = joker ? null : decode(tile);
  const interactive = Boolean(options.onclick || options.drag);
  return h(
    interactive ? "button" : "span",
    {
      type: interactive ? "button" : null,
      class: [
        "tile",
        joker ? "joker" : `c-${decoded.colour}`,
        options.selected ? "selected" : "",
        options.fresh ? "fresh" : "",
        options.hinted ? "hinted" : "",
        options.lastMove ? "last-move" : "",
      ].join(" "),
      dataset: { tile, ...(options.drag ? { drag: options.drag } : {}) },
      "aria-label": label(tile, options),
      "aria-pressed": interactive ? String(Boolean(options.selected)) : null,
      onclick: options.onclick,
    },
    joker ? jokerFace() : h("span.num", { "aria-hidden": "true" }, String(decoded.number)),
    joker ? null : h("span.shape", { "aria-hidden": "true" }, SHAPES[decoded.colour]),
    options.stands ? standsFor(options.stands) : null,
  );
}
