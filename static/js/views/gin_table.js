// The Gin Rummy table: the opponent with their last move marked, the stock and discard pile,
// one's own hand (gin_hand.js) and the moves allowed right now (the hand-ending ones in
// gin_knock.js), the hand's result with the countdown to the next, the move log and the match
// scoreboard.

import { actionText } from "../action_text.js";
import { cardName, seatLabel } from "../game_text.js";
import { listText, t } from "../i18n.js";
import { toggleLayOff } from "../rules/gin_layouts.js";
import { bestArrangement } from "../rules/gin_melds.js";
import { cardBack, cardElement } from "./cards.js";
import { clear, h, keepFocus } from "./dom.js";
import { enableDrag } from "./drag.js";
import { createGinHand } from "./gin_hand.js";
import { bestEnding, endingOptions } from "./gin_knock.js";
import { handOutcome, matchScoreboard, matchWinnerText, outcomeSummary } from "./gin_results.js";
import { createDealReturn, createRevealer, matchBanner, nextHandBar } from "./hand_end.js";
import { createHint } from "./hint.js";
import { flyFrom } from "./motion.js";
import { createMoveList } from "./move_list.js";
import { createMover } from "./moves.js";
import { awayLine, awayLineElement } from "./presence.js";
import { showError } from "./toasts.js";

// Keys for a whole move in a key or two (shown in the table's key line).
const KEYS = { s: "stock", t: "take", p: "pass", d: "discard", k: "end" };

export function createGinTable(container, controller) {
  const root = h("div.gin");
  container.replaceChildren(root);
  let state = null;
  // Without a controller (a replay) the table is only shown, never played.
  const live = Boolean(controller);
  const hint = createHint(controller, () => draw());
  let rebuilt = false;
  const log = createMoveList("gin_rummy");
  const reveal = createRevealer();
  const dealReturn = createDealReturn();
  let suggestion = null;
  // The other players' moves still to animate.
  let flights = [];

  const seatName = (seat) => seatLabel(state?.room?.seats?.find((s) => s.seat === seat), seat);
  const mySeat = () => state?.game?.me?.seat ?? null;
  const seatInfo = (seat) => state?.room?.seats?.find((s) => s.seat === seat) ?? null;

  const act = createMover(controller, {
    accepted: () => {
      hand.clearSelection();
      hint.clear();
    },
    settled: () => draw(),
  });
  const hand = createGinHand({ act, redraw: () => draw() });

  function myTable(game) {
    const index = game.me?.table ?? 0;
    return game.tables?.[index] ?? game.tables?.[0] ?? null;
  }

  function myTurn(table) {
    return live && mySeat() !== null && table?.turn === mySeat();
  }

  // Whether the server lists a move of this kind (and draw source) for this seat now: the
  // prompts and highlights follow the rules it applies (after two passes, the stock only).
  function allowed(type, source = null) {
    const legal = state.you?.legal ?? [];
    return legal.some((a) => a.type === type && (source === null || a.source === source));
  }

  // The draws a player may try now; a refusal says why instead of doing nothing.
  function takeFrom(source) {
    const table = myTable(state.game);
    if (!myTurn(table)) return showError({ code: table?.phase === "over" ? "hand_over" : "not_your_turn" });
    if (table.phase === "discard") return showError({ code: "already_drawn" });
    if (table.phase === "upcard_offer") {
      if (source === "stock") return showError({ code: "upcard_first" });
      return act({ type: "take_upcard" });
    }
    if (source === "discard" && !allowed("draw", "discard")) return showError({ code: "must_draw_from_stock" });
    return act({ type: "draw", source });
  }

  function context(table, game) {
    const me = game.me;
    const options = myTurn(table) && table.phase === "discard" ? discardOptions(game, table) : null;
    return { table, game, me, options, live, hinted, suggestion, seatName };
  }

  // The discard-phase moves: the server's legal actions for this seat when the document
  // carries them (you.legal), else the hand minus the card just taken.
  function discardOptions(game, table) {
    const me = game.me;
    const legal = state.you?.legal;
    const playable = Array.isArray(legal) && legal.length
      ? legal.filter((a) => a.type === "discard").map((a) => a.card)
      : me.hand.filter((c) => c !== me.taken_this_turn);
    return { playable, ...endingOptions(me, table, legal, game.config) };
  }

  enableDrag(root, (source, target, point) => {
    const what = source.dataset.drag;
    const where = target.dataset.drop;
    if (what === "stock" && where === "hand") takeFrom("stock");
    else if (what === "discard" && where === "hand") takeFrom("discard");
    else if (what.startsWith("card:") && where === "discard") {
      hand.discard(context(myTable(state.game), state.game), what.slice(5));
    } else if (what.startsWith("card:") && where === "hand") hand.reorder(what.slice(5), target, point);
  });

  function onKey(event) {
    if (!state?.game || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest?.("input, select, textarea")) return;
    const key = KEYS[event.key.toLowerCase()];
    if (!key || !live || mySeat() === null) return;
    event.preventDefault();
    const table = myTable(state.game);
    const ctx = context(table, state.game);
    if (key === "stock") takeFrom("stock");
    else if (key === "take") takeFrom("discard");
    else if (key === "pass") {
      if (myTurn(table) && table.phase === "upcard_offer") act({ type: "pass" });
      else showError({ code: myTurn(table) ? "wrong_phase" : "not_your_turn" });
    } else if (key === "discard") {
      const focused = document.activeElement?.closest?.("#my-hand .card[data-card]")?.dataset.card;
      const card = hand.selected ?? focused;
      if (card) hand.discard(ctx, card);
      else showError({ code: "pick_a_card" });
    } else if (key === "end" && myTurn(table) && table.phase === "lay_off") {
      act({ type: "lay_off", layoffs: chosenLayOffs(table) });
    } else if (key === "end") {
      const ending = ctx.options ? bestEnding(ctx.options) : null;
      if (ending) act(ending);
      else showError({ code: myTurn(table) && table.phase === "discard" ? "deadwood_too_high" : "wrong_phase" });
    }
  }
  if (live) document.addEventListener("keydown", onKey);

  function lastMoveLine(seat) {
    const move = log.last(seat);
    if (!move) return null;
    return h("p.last-move-line", { id: `last-move-${seat}` }, t("log.last_move", { move: actionText("gin_rummy", move.action) }));
  }

  function opponentArea(table, game) {
    const others = table.players.filter((p) => p.seat !== mySeat());
    return others.map((player) => {
      const move = log.last(player.seat);
      const shown = player.cards;
      const backs = Array.from({ length: player.card_count }, (_, i) =>
        cardBack({ small: true, extraClass: i === player.card_count - 1 && move?.action.source === "stock" ? "last-move" : "" }),
      );
      return h(
        "div.gin-opponent",
        { dataset: { seat: player.seat }, class: table.turn === player.seat ? "turn" : "" },
        h("div.who", {}, t("gin.opponent_hand", { name: seatName(player.seat) }), " · ", t("gin.cards_n", { n: player.card_count })),
        h(
          "div.card-fan",
          {},
          shown ? shown.map((card) => cardElement(card, { small: true })) : backs,
        ),
        player.taken_from_discard?.length
          ? h(
              "div.known",
              {},
              h("span", {}, t("gin.took_from_discard")),
              player.taken_from_discard.map((card) =>
                cardElement(card, { small: true, extraClass: move?.card === card && move.action.type !== "discard" ? "last-move" : "" }),
              ),
            )
          : null,
        lastMoveLine(player.seat),
      );
    });
  }

  function centre(table, game) {
    const mine = myTurn(table);
    const canDraw = mine && allowed("draw", "stock");
    const canTakeDiscard = mine && (allowed("draw", "discard") || allowed("take_upcard"));
    const top = table.discard_pile[table.discard_pile.length - 1];
    const stock = cardBack({
      drag: live ? "stock" : null,
      onclick: live ? () => takeFrom("stock") : null,
      label: t("gin.stock_label", { n: table.stock_count }),
      extraClass: [canDraw ? "can-take" : "", hinted("stock") ? "hinted" : ""].join(" "),
    });
    stock.id = "stock";
    const discardedBy = log.lastMoves().find(([, move]) => move.action.type === "discard" && move.card === top);
    const discard = top
      ? cardElement(top, {
          drag: live ? "discard" : null,
          onclick: live ? () => takeFrom("discard") : null,
          label: t("gin.discard_label", { card: cardName(top) }),
          extraClass: [canTakeDiscard ? "can-take" : "", hinted("discard") ? "hinted" : "", discardedBy ? "last-move" : ""].join(" "),
        })
      : h("span.card.empty-pile", {}, "");
    discard.id = "discard-top";
    return h(
      "div.gin-centre",
      {},
      h("div.pile", {}, stock, pileLabel(t("gin.stock_n", { n: table.stock_count }))),
      h(
        "div.pile",
        { dataset: { drop: "discard" }, id: "discard-pile" },
        discard,
        pileLabel(discardedBy ? t("gin.discarded_by", { name: seatName(discardedBy[0]) }) : t("gin.discard_pile")),
      ),
      h("div.gin-status", {}, statusLine(table)),
    );
  }

  // A pile's label keeps its size (cut after two lines, the whole in its title), so the table
  // does not shift when it changes.
  function pileLabel(text) {
    return h("span.pile-label", { title: text }, text);
  }

  // The turn line in words (also announced to screen readers).
  function turnText(table) {
    if (!table || table.phase === "over") return t("gin.hand_over");
    if (myTurn(table) && table.phase === "draw" && !allowed("draw", "discard")) return t("gin.do.draw_stock");
    // A finger cannot double-click: the touch screen's prompt names what it can do.
    if (myTurn(table) && table.phase === "discard" && matchMedia("(pointer: coarse)").matches) return t("gin.do.discard_touch");
    if (myTurn(table)) return t(`gin.do.${table.phase}`);
    return awayLine(state.room, table.turn, seatName(table.turn)) ?? t(`gin.wait.${table.phase}`, { name: seatName(table.turn) });
  }

  function statusLine(table) {
    if (table.phase === "over") return h("p", { id: "turn-line" }, t("gin.hand_over"));
    const lines = [];
    if (myTurn(table)) {
      lines.push(h("p.your-turn", { id: "turn-line" }, turnText(table)));
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
      lines.push(awayLineElement(state.room, table.turn, seatName(table.turn)) ?? h("p", { id: "turn-line" }, turnText(table)));
    }
    lines.push(h("p.muted", {}, t("gin.knock_limit", { n: table.knock_limit })));
    if (live && mySeat() !== null) lines.push(h("p.keys", {}, t("gin.keys")));
    return lines;
  }

  function handArea(table, game) {
    const me = game.me;
    if (!me) {
      // A finished match's replay shows every hand face up: nothing is hidden to say so.
      if (table.players.every((p) => p.cards)) return null;
      const seated = state.you?.seat !== null && state.you?.seat !== undefined;
      return h("p.muted.sit-out", {}, seated ? t("gin.sitting_out") : t("room.spectator_view"));
    }
    if (!table.players.some((p) => p.seat === me.seat)) return null;
    return hand.element(context(table, game));
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
    if (action.type === "lay_off") {
      const cards = action.layoffs ?? [];
      return cards.length ? t("hint.gin.lay_off", { cards: listText(cards.map((l) => cardName(l.card))) }) : t("hint.gin.lay_off_none");
    }
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

  // While the defender chooses its lay-offs: the knocker's layout for everyone and, for the
  // defender, the server's best lay-offs (its first legal lay_off), each on a checkbox and
  // shown on the meld it goes onto; any choice left checked can be laid off.
  let layOffs = { key: null, off: new Set() };

  function bestLayOffs() {
    return (state.you?.legal ?? []).find((a) => a.type === "lay_off")?.layoffs ?? [];
  }

  function chosenLayOffs(table) {
    const key = `${state.game.hand_number}:${table.table}`;
    if (layOffs.key !== key) layOffs = { key, off: new Set() };
    return bestLayOffs().filter((l) => !layOffs.off.has(l.card));
  }

  function knockPanel(table) {
    if (table.phase !== "lay_off" || !table.knock) return null;
    const knock = table.knock;
    const defending = myTurn(table);
    const chosen = defending ? chosenLayOffs(table) : [];
    const onto = (index) => chosen.filter((l) => l.meld === index).map((l) => l.card);
    const small = (card) => cardElement(card, { small: true });
    return h(
      "div.knock-layout",
      { id: "knock-layout" },
      h("p.who", {}, t("gin.knock_layout", { name: seatName(knock.seat), n: knock.deadwood_points })),
      h(
        "div.hand-groups",
        {},
        knock.melds.map((meld, index) =>
          h(
            "div.meld-group",
            { dataset: { meld: index } },
            meld.map(small),
            onto(index).map((card) =>
              cardElement(card, { small: true, extraClass: "laid-off", label: t("gin.laid_off_card", { card: cardName(card) }) }),
            ),
          ),
        ),
        knock.deadwood.length ? h("div.meld-group.deadwood-group", {}, knock.deadwood.map(small)) : null,
      ),
      defending ? layOffChooser(table, chosen) : null,
    );
  }

  function layOffChooser(table, chosen) {
    const melds = table.knock.melds;
    const picked = new Set(chosen.map((l) => l.card));
    const left = (state.game.me?.hand ?? []).filter((card) => !picked.has(card));
    // A card along a run goes with the cards between it and the meld: checking it checks
    // them, unchecking one of them unchecks it, so what is sent always fits.
    const toggle = (card) => (event) => {
      layOffs.off = toggleLayOff(bestLayOffs(), melds, layOffs.off, card, event.target.checked);
      draw();
    };
    return h(
      "div.lay-off",
      {},
      h("p.muted", {}, t("gin.lay_off_help")),
      h("p", { id: "deadwood-after" }, t("gin.deadwood_after_lay_offs", { n: bestArrangement(left).points })),
      bestLayOffs().map((l) =>
        h(
          "label.lay-off-option",
          {},
          h("input", { type: "checkbox", dataset: { card: l.card }, checked: picked.has(l.card), onchange: toggle(l.card) }),
          " ",
          t("gin.lay_off_onto", { card: cardName(l.card), meld: listText(melds[l.meld].map(cardName)) }),
        ),
      ),
      h(
        "div.buttons",
        {},
        h("button.primary", { type: "button", id: "lay-off", onclick: () => act({ type: "lay_off", layoffs: chosenLayOffs(table) }) }, t("gin.lay_off")),
        h("button", { type: "button", id: "lay-off-none", onclick: () => act({ type: "lay_off", layoffs: [] }) }, t("gin.lay_off_none")),
      ),
    );
  }

  // The hand's result, first on the table while it is over, with the countdown to the next.
  function outcomePanel(table) {
    if (!table.outcome) return null;
    const panel = handOutcome(table.outcome, seatName, seatInfo);
    if (live && table === myTable(state.game)) panel.append(nextHandBar(state, controller) ?? "");
    return panel;
  }

  function tableElement(table, game) {
    return h(
      "div.gin-table",
      { dataset: { table: table.table, phase: table.phase } },
      outcomePanel(table),
      knockPanel(table),
      game.tables.length > 1 ? h("h3", {}, t("gin.table_n", { n: table.table + 1 })) : null,
      h("div.felt", {}, opponentArea(table, game), centre(table, game), handArea(table, game)),
    );
  }

  function banner(game) {
    const text = matchWinnerText(game, seatName);
    return text ? matchBanner(state, controller, text) : null;
  }

  // Flies each other player's last move in from where it came from.
  function fly() {
    for (const move of flights) {
      const area = root.querySelector(`.gin-opponent[data-seat="${move.seat}"]`);
      if (!area) continue;
      if (move.action.type === "discard") {
        flyFrom(root.querySelector("#discard-top"), area.querySelector(".card-fan").getBoundingClientRect());
      } else if (move.action.source === "stock") {
        flyFrom(area.querySelector(".card-fan .card.last-move"), root.querySelector("#stock")?.getBoundingClientRect());
      } else if (move.card) {
        flyFrom(area.querySelector(`.known .card[data-card="${move.card}"]`), root.querySelector("#discard-pile")?.getBoundingClientRect());
      }
    }
    flights = [];
  }

  function draw() {
    if (!state?.game) return;
    const game = state.game;
    suggestion = hint.action(state);
    const mine = myTable(game);
    const tables = [mine, ...(game.tables ?? []).filter((tb) => tb !== mine)].filter(Boolean);
    keepFocus(root, () =>
      clear(
        root,
        banner(game),
        tables.map((table) => tableElement(table, game)),
        log.element(seatName, { startOpen: window.innerWidth > 640 }),
        matchScoreboard(game, seatName),
      ),
    );
    fly();
    const outcome = root.querySelector("#match-banner") ?? root.querySelector("#hand-outcome");
    if (outcome) reveal(outcome, `${game.hand_number}:${Boolean(game.result)}`);
    else if (live) dealReturn(game.hand_number);
  }

  // The words of the hand's result, when it ended between two views.
  function handNote(before, after) {
    const ended = myTable(after)?.outcome;
    return ended && !myTable(before)?.outcome ? () => outcomeSummary(ended, seatName) : null;
  }

  return {
    update(next) {
      const before = state?.game ?? null;
      state = next;
      if (live) {
        flights.push(...log.follow(before, state.game, { me: mySeat(), seatName }));
        // The hand's result stays in the log after the next deal takes it off the table.
        const words = before ? handNote(before, state.game) : null;
        if (words) log.note(words);
      }
      // A page opened or reloaded mid-match has no earlier view to follow: the log and the
      // last-move marks are rebuilt from the server's log of the match.
      if (live && !before && state.game && !rebuilt && controller.matchViews) {
        rebuilt = true;
        controller.matchViews().then((views) => {
          log.rebuild(views, { me: mySeat(), noteFor: handNote });
          draw();
        });
      }
      hand.update(before?.me?.hand ?? [], state.game?.me?.hand ?? []);
      draw();
    },
    redraw: draw,
    turnSeats: (s) => s.game?.to_act ?? [],
    turnText: () => (state?.game ? turnText(myTable(state.game)) : ""),
    dispose() {
      document.removeEventListener("keydown", onKey);
      root.remove();
    },
  };
}
