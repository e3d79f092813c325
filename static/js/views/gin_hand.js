// One's own Gin Rummy hand: grouped into its best melds (or in the player's own order once they
// rearrange it by dragging), the live deadwood, selecting and discarding by pointer or keyboard,
// and a message for every card that cannot be played now.

import { arranged, moveTo } from "../hand_order.js";
import { cardName } from "../game_text.js";
import { t } from "../i18n.js";
import { groupedHand } from "../rules/gin_melds.js";
import { cardElement } from "./cards.js";
import { h } from "./dom.js";
import { insertionIndex } from "./drag.js";
import { endingButtons } from "./gin_knock.js";
import { createLayoutPicker } from "./gin_layout_picker.js";
import { rovingFocus } from "./roving.js";
import { showError } from "./toasts.js";

// Once the hand is over, the deadwood the result counted (after the defender's lay-offs), so
// the table and the result show one figure.
function deadwoodShown(table, me) {
  const counted = table.outcome?.players?.find((p) => p.seat === me.seat);
  return counted ? counted.deadwood_points : me.arrangement.deadwood_points;
}

// The hand sorted by suit (then rank) or by rank (then suit), ace low.
const SUIT_ORDER = "SHCD";
const rank = (card) => Number(card.slice(1));
const suit = (card) => SUIT_ORDER.indexOf(card[0]);
const SORTS = {
  suit: (a, b) => suit(a) - suit(b) || rank(a) - rank(b),
  rank: (a, b) => rank(a) - rank(b) || suit(a) - suit(b),
};

// act(action) sends a move; redraw() redraws the table.
export function createGinHand({ act, redraw }) {
  const layouts = createLayoutPicker(redraw);
  let selected = null;
  let fresh = null;
  let order = null;
  let shown = [];

  // Why `card` cannot be discarded now (an error code of the language tables), or null.
  function refusal(ctx, card) {
    const { table, me, options } = ctx;
    if (table.phase === "over") return "hand_over";
    if (table.turn !== me.seat) return "not_your_turn";
    if (table.phase !== "discard") return "draw_first";
    if (card === me.taken_this_turn) return "cannot_discard_taken_card";
    return options?.playable.includes(card) ? null : "wrong_phase";
  }

  function select(ctx, card) {
    const why = refusal(ctx, card);
    if (why) {
      selected = null;
      showError({ code: why });
    } else {
      selected = selected === card ? null : card;
    }
    redraw();
  }

  function discard(ctx, card) {
    const why = refusal(ctx, card);
    if (why) showError({ code: why });
    else act({ type: "discard", card });
  }

  function cardButton(ctx, card, marks = "") {
    const { me, hinted, live } = ctx;
    return cardElement(card, {
      drag: live ? `card:${card}` : null,
      selected: selected === card,
      // A double click discards. It is read from the second click's count, not a dblclick
      // event: the first click redraws the hand, and the browser may send no dblclick to a
      // card that was drawn anew between the two clicks.
      onclick: live ? (event) => (event.detail === 2 ? discard(ctx, card) : select(ctx, card)) : null,
      extraClass: [
        marks,
        card === me.taken_this_turn ? "taken" : "",
        card === fresh ? "fresh" : "",
        hinted(`card:${card}`) ? "hinted" : "",
      ].join(" "),
    });
  }

  function cards(ctx) {
    const { me } = ctx;
    const own = arranged(order, me.hand);
    if (own) {
      const loose = new Set(me.arrangement.deadwood);
      shown = own;
      return h(
        "div.hand-row",
        {},
        own.map((card) => cardButton(ctx, card, loose.has(card) ? "is-deadwood" : "in-meld")),
      );
    }
    const grouped = groupedHand(me.hand);
    shown = [...grouped.melds.flat(), ...grouped.deadwood];
    return h(
      "div.hand-groups",
      {},
      grouped.melds.map((meld) => h("div.meld-group", { "aria-label": t("gin.meld") }, meld.map((card) => cardButton(ctx, card)))),
      grouped.deadwood.length
        ? h("div.meld-group.deadwood-group", { "aria-label": t("gin.deadwood") }, grouped.deadwood.map((card) => cardButton(ctx, card)))
        : null,
    );
  }

  function moveButtons(ctx) {
    const { options, suggestion, game, table } = ctx;
    const buttons = [];
    if (selected && options.playable.includes(selected)) {
      buttons.push(
        h("button.primary", { type: "button", id: "discard-button", onclick: () => act({ type: "discard", card: selected }) }, t("gin.discard_card", { card: cardName(selected) })),
      );
    } else {
      buttons.push(h("span.muted", {}, t("gin.pick_discard")));
    }
    buttons.push(...endingButtons(options, { act, suggestion, layouts, game, table }));
    return h("div.move-buttons", {}, buttons);
  }

  return {
    get selected() {
      return selected;
    },
    clearSelection() {
      selected = null;
    },
    // Follows the hand from one document to the next: the card just drawn glows, a card that
    // left stops being selected.
    update(before, hand) {
      const added = hand.filter((card) => !before.includes(card));
      if (added.length === 1 && hand.length === before.length + 1) fresh = added[0];
      else if (hand.length !== 11) fresh = null;
      if (selected && !hand.includes(selected)) selected = null;
    },
    // A hand card dropped back on the hand at `point`: the player's own order from now on.
    reorder(card, handElement, point) {
      const others = [...handElement.querySelectorAll(".card[data-card]")].filter((el) => el.dataset.card !== card);
      order = moveTo(shown, card, insertionIndex(others, point));
      redraw();
    },
    select,
    discard,
    // ctx: {table, game, me, options (discard-phase moves or null), live, hinted, suggestion,
    // seatName}
    element(ctx) {
      const { table, me, options, seatName } = ctx;
      const hand = h(
        "div.gin-hand",
        { dataset: { drop: "hand" }, id: "my-hand", class: table.turn === me.seat ? "turn" : "" },
        h(
          "div.hand-head",
          {},
          h("span", {}, t("gin.your_hand", { name: seatName(me.seat) })),
          h("span.deadwood", { id: "deadwood" }, t("gin.deadwood_n", { n: deadwoodShown(table, me) })),
          me.knock_deadwood !== null && me.knock_deadwood !== undefined
            ? h("span.muted", {}, t("gin.best_knock", { n: me.knock_deadwood }))
            : null,
          order
            ? h("button.small", { type: "button", id: "sort-melds", onclick: () => { order = null; redraw(); } }, t("gin.sort_melds"))
            : null,
          // A sort is the player's own order from then on: dragging moves cards within it.
          Object.entries(SORTS).map(([by, compare]) =>
            h("button.small", { type: "button", id: `sort-${by}`, onclick: () => { order = [...me.hand].sort(compare); redraw(); } }, t(`gin.sort_${by}`)),
          ),
        ),
        cards(ctx),
        options ? moveButtons(ctx) : null,
      );
      const buttons = [...hand.querySelectorAll(".card[data-card]")];
      rovingFocus(hand, buttons, buttons.find((b) => b.dataset.card === selected) ?? null);
      return hand;
    },
  };
}
