// The moves that end a Gin Rummy hand (knock, gin, big gin): offered only when legal, each with
// the deadwood it would leave. One place for them, so that a way of choosing how the knocker's
// melds are laid out can hook in here without touching the rest of the table.

import { cardName } from "../game_text.js";
import { t } from "../i18n.js";
import { deadwoodAfterDiscard } from "../rules/gin_melds.js";
import { h } from "./dom.js";

// The endings open to the seat now, lowest deadwood first: from the server's legal actions when
// the document carries them (you.legal), else worked out here from the hand.
export function endingOptions(me, table, legal, config) {
  const after = deadwoodAfterDiscard(me.hand);
  if (Array.isArray(legal) && legal.length) {
    const endings = legal
      .filter((a) => a.type === "knock" || a.type === "gin")
      .map((a) => ({ type: a.type, card: a.card, deadwood: after[a.card] }))
      .sort((a, b) => a.deadwood - b.deadwood);
    return { endings, bigGin: legal.some((a) => a.type === "big_gin") };
  }
  const endings = [];
  for (const card of me.hand.filter((c) => c !== me.taken_this_turn)) {
    if (after[card] === 0) endings.push({ type: "gin", card, deadwood: 0 });
    else if (after[card] <= table.knock_limit) endings.push({ type: "knock", card, deadwood: after[card] });
  }
  endings.sort((a, b) => a.deadwood - b.deadwood);
  const bigGin = config.big_gin_bonus > 0 && me.arrangement.deadwood_points === 0;
  return { endings, bigGin };
}

// The ending buttons; `suggestion` (a hint's action) marks the one it suggests. With
// `layouts` (gin_layout_picker.js), a knock whose kept cards lay out more than one way gets a
// chooser beside its button, and the knock sends the chosen melds.
export function endingButtons({ endings, bigGin }, { act, suggestion, layouts, game, table }) {
  const buttons = [];
  for (const ending of endings) {
    const knock = layouts && ending.type === "knock" ? layouts.knock(ending, game, table) : null;
    buttons.push(
      h(
        `button.${ending.type === "gin" ? "gin-button" : "knock-button"}`,
        {
          type: "button",
          dataset: { card: ending.card },
          class: suggestion?.type === ending.type && suggestion.card === ending.card ? "hinted" : "",
          onclick: () => act(knock?.action ?? { type: ending.type, card: ending.card }),
        },
        ending.type === "gin"
          ? t("gin.gin_with", { card: cardName(ending.card) })
          : t("gin.knock_with", { card: cardName(ending.card), n: ending.deadwood }),
      ),
    );
    if (knock?.element) buttons.push(knock.element);
  }
  if (bigGin) {
    const big = suggestion?.type === "big_gin" ? "hinted" : "";
    buttons.push(h("button.gin-button", { type: "button", id: "big-gin", class: big, onclick: () => act({ type: "big_gin" }) }, t("gin.big_gin")));
  }
  return buttons;
}

// The ending a keyboard shortcut takes: big gin, else the gin or knock with least deadwood.
export function bestEnding({ endings, bigGin }) {
  if (bigGin) return { type: "big_gin" };
  const best = endings[0];
  return best ? { type: best.type, card: best.card } : null;
}
