// Playing cards drawn with CSS: a face (rank and suit) or a back.

import { cardName, cardParts } from "../game_text.js";
import { t } from "../i18n.js";
import { h } from "./dom.js";

// options: {drag, selected, disabled, small, onclick, extraClass, label}
export function cardElement(card, options = {}) {
  const { suit, label, symbol } = cardParts(card);
  const red = suit === "H" || suit === "D";
  const interactive = Boolean(options.onclick || options.drag);
  return h(
    interactive ? "button" : "span",
    {
      type: interactive ? "button" : null,
      class: [
        "card",
        red ? "red" : "black",
        `suit-${suit}`,
        options.small ? "small" : "",
        options.selected ? "selected" : "",
        options.extraClass ?? "",
      ].join(" "),
      dataset: { card, ...(options.drag ? { drag: options.drag } : {}) },
      "aria-label": options.label ?? cardName(card),
      "aria-pressed": interactive && options.selected !== undefined ? String(Boolean(options.selected)) : null,
      disabled: options.disabled,
      onclick: options.onclick,
    },
    h("span.corner", { "aria-hidden": "true" }, h("span.rank", {}, label), h("span.suit", {}, symbol)),
    h("span.pip", { "aria-hidden": "true" }, symbol),
  );
}

export function cardBack(options = {}) {
  const interactive = Boolean(options.onclick || options.drag);
  return h(
    interactive ? "button" : "span",
    {
      type: interactive ? "button" : null,
      class: `card back ${options.small ? "small" : ""} ${options.extraClass ?? ""}`,
      dataset: options.drag ? { drag: options.drag } : {},
      "aria-label": options.label ?? t("card.back"),
      disabled: options.disabled,
      onclick: options.onclick,
    },
  );
}
