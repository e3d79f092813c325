// The Gin Rummy table: the opponent, the stock and discard pile, one's own hand grouped into
// its best melds with the live deadwood, and the moves allowed right now.

import { cardName, seatLabel } from "../game_text.js";
import { t } from "../i18n.js";
import { deadwoodAfterDiscard, groupedHand } from "../rules/gin_melds.js";
import { cardBack, cardElement } from "./cards.js";
import { clear, h, keepFocus } from "./dom.js";
import { enableDrag } from "./drag.js";
import { createLayoutPicker } from "./gin_layout_picker.js";
import { handOutcome, matchScoreboard } from "./gin_results.js";
import { createHint } from "./hint.js";
import { createMover } from "./moves.js";

export function createGinTable(container, controller) {
  const root = h("div.gin");
  container.replaceChildren(root);
  let state = null;
  let selected = null;
  let fresh = null;
  // Without a controller (a replay) the table is only shown, never played.
  const live = Boolean(controller);
  const hint = createHint(controller, () => draw());
  const layouts = createLayoutPicker(() => draw());
  let suggestion = null;

  const seatName = (seat) => seatLabel(state?.room?.seats?.find((s) => s.seat === seat), seat);

  const act = createMover(controller, {
    accepted: () => {
      selected = null;
      hint.clear();
    },
    settled: () => draw(),
  });

  enableDrag(root, (source, target) => {
    const what = source.dataset.drag;
    const where = target.dataset.drop;
    if (what === "stock" && where === "hand") act({ type: "draw", source: "stock" });
    else if (what === "discard" && where === "hand") act({ type: "draw", source: "discard" });
    else if (what.startsWith("card:") && where === "discard") act({ type: "discard", card: what.slice(5) });
  });

  function myTable(game) {
    const index = game.me?.table ?? 0;
    return game.tables?.[index] ?? game.tables?.[0] ?? null;
  }

  // The discard-phase moves: the server's legal actions for this seat when the document
  // carries them (you.legal), with the deadwood each knock would leave computed here.
  function discardOptions(game, table) {
    const me = game.me;
    if (!live || !me || table.turn !== me.seat || table.phase !== "discard") return null;
    const after = deadwoodAfterDiscard(me.hand);
    const legal = state.you?.legal;
    if (Array.isArray(legal) && legal.length) {
      const endings = legal
        .filter((a) => a.type === "knock" || a.type === "gin")
        .map((a) => ({ type: a.type, card: a.card, deadwood: after[a.card] }))
        .sort((a, b) => a.deadwood - b.deadwood);
      return {
        playable: legal.filter((a) => a.type === "discard").map((a) => a.card),
        endings,
        bigGin: legal.some((a) => a.type === "big_gin"),
      };
    }
    const playable = me.hand.filter((c) => c !== me.taken_this_turn);
    const endings = [];
    for (const card of playable) {
      if (after[card] === 0) endings.push({ type: "gin", card, deadwood: 0 });
      else if (after[card] <= table.knock_limit) endings.push({ type: "knock", card, deadwood: after[card] });
    }
    endings.sort((a, b) => a.deadwood - b.deadwood);
    const bigGin = game.config.big_gin_bonus > 0 && me.arrangement.deadwood_points === 0;
    return { playable, endings, bigGin };
  }

  function opponentArea(table, game) {
    const mySeat = game.me?.seat ?? null;
    const others = table.players.filter((p) => p.seat !== mySeat);
    return others.map((player) =>
      h(
        "div.gin-opponent",
        { dataset: { seat: player.seat }, class: table.turn === player.seat ? "turn" : "" },
        h("div.who", {}, seatName(player.seat), h("span.muted", {}, " · ", t("gin.cards_n", { n: player.card_count }))),
        h(
          "div.card-fan",
          { "aria-label": t("gin.opponent_hand", { name: seatName(player.seat) }) },
          player.cards
            ? player.cards.map((card) => cardElement(card, { small: true }))
            : Array.from({ length: player.card_count }, () => cardBack({ small: true })),
        ),
        player.taken_from_discard.length
          ? h(
              "div.known",
              {},
              h("span.label", {}, t("gin.took_from_discard")),
              player.taken_from_discard.map((card) => cardElement(card, { small: true })),
            )
          : null,
      ),
    );
  }

  function centre(table, game) {
    const mine = live && game.me && table.turn === game.me.seat && table.players.some((p) => p.seat === game.me.seat);
    const canDraw = mine && table.phase === "draw";
    const offer = mine && table.phase === "upcard_offer";
    const top = table.discard_pile[table.discard_pile.length - 1] ?? null;
    const canTakeDiscard = (canDraw && top) || offer;
    const stock = cardBack({
      drag: canDraw ? "stock" : null,
      onclick: canDraw ? () => act({ type: "draw", source: "stock" }) : null,
      disabled: !canDraw,
      label: t("gin.stock_label", { n: table.stock_count }),
      extraClass: [canDraw ? "can-take" : "", hinted("stock") ? "hinted" : ""].join(" "),
    });
    stock.id = "stock";
    const discard = top
      ? cardElement(top, {
          drag: canDraw ? "discard" : null,
          onclick: canTakeDiscard
            ? () => act(offer ? { type: "take_upcard" } : { type: "draw", source: "discard" })
            : null,
          label: t("gin.discard_label", { card: cardName(top) }),
          extraClass: [canTakeDiscard ? "can-take" : "", hinted("discard") ? "hinted" : ""].join(" "),
        })
      : h("span.card.empty-pile", {}, "");
    discard.id = "discard-top";
    return h(
      "div.gin-centre",
      {},
      h("div.pile", {}, stock, h("span.pile-label", {}, t("gin.stock_n", { n: table.stock_count }))),
      h(
        "div.pile",
        { dataset: { drop: "discard" }, id: "discard-pile" },
        discard,
        h("span.pile-label", {}, t("gin.discard_pile")),
      ),
      h("div.gin-status", {}, statusLine(table, game)),
    );
  }

  function statusLine(table, game) {
    if (table.phase === "over") return h("p", {}, t("gin.hand_over"));
    const mine = live && game.me && table.turn === game.me.seat;
    const lines = [];
    if (mine) {
      lines.push(h("p.your-turn", { id: "turn-line" }, t(`gin.do.${table.phase}`)));
      if (table.phase === "upcard_offer") {
        lines.push(
          h(
            "div.buttons",
            {},
            h("button.primary", { type: "button", id: "take-upcard", class: hinted("discard") ? "hinted" : "", onclick: () => act({ type: "take_upcard" }) }, t("gin.take_upcard")),
            h("button", { type: "button", id: "pass-upcard", class: hinted("pass") ? "hinted" : "", onclick: () => act({ type: "pass" }) }, t("gin.pass")),
          ),
        );
      }
      lines.push(hintLine(table));
    } else {
      lines.push(h("p", { id: "turn-line" }, t(`gin.wait.${table.phase}`, { name: seatName(table.turn) })));
    }
    lines.push(h("p.muted", {}, t("gin.knock_limit", { n: table.knock_limit })));
    return lines;
  }

  function handArea(table, game) {
    const me = game.me;
    if (!me) {
      const seated = state.you?.seat !== null && state.you?.seat !== undefined;
      return h("p.muted.sit-out", {}, seated ? t("gin.sitting_out") : t("room.spectator_view"));
    }
    if (!table.players.some((p) => p.seat === me.seat)) return null;
    const options = discardOptions(game, table);
    const grouped = groupedHand(me.hand);
    const cardFor = (card) => {
      const canDiscard = options?.playable.includes(card);
      return cardElement(card, {
        drag: canDiscard ? `card:${card}` : null,
        selected: selected === card,
        onclick: canDiscard ? () => {
          selected = selected === card ? null : card;
          draw();
        } : null,
        ondblclick: canDiscard ? () => act({ type: "discard", card }) : null,
        extraClass: [
          card === me.taken_this_turn ? "taken" : "",
          card === fresh ? "fresh" : "",
          hinted(`card:${card}`) ? "hinted" : "",
        ].join(" "),
      });
    };
    const points = me.arrangement.deadwood_points;
    return h(
      "div.gin-hand",
      { dataset: { drop: "hand" }, id: "my-hand", class: table.turn === me.seat ? "turn" : "" },
      h(
        "div.hand-head",
        {},
        h("span", {}, t("gin.your_hand", { name: seatName(me.seat) })),
        h("span.deadwood", { id: "deadwood" }, t("gin.deadwood_n", { n: points })),
        me.knock_deadwood !== null && me.knock_deadwood !== undefined
          ? h("span.muted", {}, t("gin.best_knock", { n: me.knock_deadwood }))
          : null,
      ),
      h(
        "div.hand-groups",
        {},
        grouped.melds.map((meld) => h("div.meld-group", { "aria-label": t("gin.meld") }, meld.map(cardFor))),
        grouped.deadwood.length
          ? h("div.meld-group.deadwood-group", { "aria-label": t("gin.deadwood") }, grouped.deadwood.map(cardFor))
          : null,
      ),
      options ? moveButtons(options) : null,
    );
  }

  function moveButtons(options) {
    const buttons = [];
    if (selected && options.playable.includes(selected)) {
      buttons.push(
        h("button.primary", { type: "button", id: "discard-button", onclick: () => act({ type: "discard", card: selected }) }, t("gin.discard_card", { card: cardName(selected) })),
      );
    } else {
      buttons.push(h("span.muted", {}, t("gin.pick_discard")));
    }
    for (const ending of options.endings) {
      const knock = ending.type === "knock" ? layouts.knock(ending, state.game, myTable(state.game)) : null;
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
    if (options.bigGin) {
      const big = suggestion?.type === "big_gin" ? "hinted" : "";
      buttons.push(h("button.gin-button", { type: "button", id: "big-gin", class: big, onclick: () => act({ type: "big_gin" }) }, t("gin.big_gin")));
    }
    return h("div.move-buttons", {}, buttons);
  }

  // Which part of the table the current hint points at: "stock", "discard", "pass" or "card:X".
  function hinted(part) {
    const kind = suggestion?.type;
    if (kind === "draw") return part === (suggestion.source === "discard" ? "discard" : "stock");
    if (kind === "take_upcard") return part === "discard";
    if (kind === "pass") return part === "pass";
    if (["discard", "knock", "gin"].includes(kind)) return part === `card:${suggestion.card}`;
    return false;
  }

  function hintText(action, table) {
    const top = table.discard_pile[table.discard_pile.length - 1];
    if (action.type === "draw") {
      return action.source === "discard" ? t("hint.gin.draw_discard", { card: cardName(top) }) : t("hint.gin.draw_stock");
    }
    if (action.type === "take_upcard") return t("hint.gin.take_upcard", { card: cardName(top) });
    if (action.type === "pass") return t("hint.gin.pass");
    if (action.type === "big_gin") return t("hint.gin.big_gin");
    if (action.type === "knock") return t("hint.gin.knock", { card: cardName(action.card) });
    if (action.type === "gin") return t("hint.gin.gin", { card: cardName(action.card) });
    return t("hint.gin.discard", { card: cardName(action.card) });
  }

  function hintLine(table) {
    const button = hint.button(state);
    if (!button) return null;
    return h(
      "div.hint-line",
      {},
      button,
      suggestion ? h("p.hint-text", { id: "hint-text", role: "status" }, t("hint.title"), ": ", hintText(suggestion, table)) : null,
    );
  }

  function tableElement(table, game) {
    return h(
      "div.gin-table",
      { dataset: { table: table.table, phase: table.phase } },
      game.tables.length > 1 ? h("h3", {}, t("gin.table_n", { n: table.table + 1 })) : null,
      h("div.felt", {}, opponentArea(table, game), centre(table, game), handArea(table, game)),
      table.outcome ? handOutcome(table.outcome, seatName) : null,
    );
  }

  function draw() {
    if (!state?.game) return;
    const game = state.game;
    suggestion = hint.action(state);
    const mine = myTable(game);
    const tables = [mine, ...(game.tables ?? []).filter((tb) => tb !== mine)].filter(Boolean);
    keepFocus(root, () => clear(root, tables.map((table) => tableElement(table, game)), matchScoreboard(game, seatName)));
  }

  return {
    update(next) {
      const before = state?.game?.me?.hand ?? [];
      state = next;
      const hand = state.game?.me?.hand ?? [];
      const added = hand.filter((card) => !before.includes(card));
      if (added.length === 1 && hand.length === before.length + 1) fresh = added[0];
      else if (hand.length !== 11) fresh = null;
      if (selected && !hand.includes(selected)) selected = null;
      draw();
    },
    redraw: draw,
    turnSeats: (s) => s.game?.to_act ?? [],
    dispose() {
      root.remove();
    },
  };
}
