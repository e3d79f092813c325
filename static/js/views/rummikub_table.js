// The Rummikub table: every meld (valid or not, as it changes) with the other players' last
// plays marked, one's own rack (rummikub_rack.js) docked at the bottom with the turn's buttons,
// the round's result with the countdown to the next, the move log and the scores. Each drag or
// tap is one server step (move, split, merge, return), so the others watch the table being
// rearranged; their steps slide into place.

import { seatLabel } from "../game_text.js";
import { errorText, listText, t } from "../i18n.js";
import { readMeld, runOrder } from "../rules/rummikub_melds.js";
import { clear, h, keepFocus } from "./dom.js";
import { enableDrag, insertionIndex } from "./drag.js";
import { createDealReturn, createRevealer, matchBanner, nextHandBar } from "./hand_end.js";
import { createHint } from "./hint.js";
import { flyFrom, positions, slideMoved } from "./motion.js";
import { createMoveList } from "./move_list.js";
import { createMover } from "./moves.js";
import { awayLine, awayLineElement } from "./presence.js";
import { rovingFocus } from "./roving.js";
import { hintPanel, hintPlaces } from "./rummikub_hint.js";
import { meldElement, whyInvalid } from "./rummikub_meld.js";
import { createRack } from "./rummikub_rack.js";
import { matchWinnerText, roundResult, roundSummary, scoreBoard } from "./rummikub_results.js";
import { tileName } from "./tiles.js";
import { showError, toast } from "./toasts.js";

export function createRummikubTable(container, controller) {
  const root = h("div.rummikub");
  container.replaceChildren(root);
  let state = null;
  let selected = null;
  const live = Boolean(controller);
  const hint = createHint(controller, () => draw());
  let rebuilt = false;
  const log = createMoveList("rummikub");
  const reveal = createRevealer();
  const dealReturn = createDealReturn();
  const rack = createRack({ redraw: () => draw() });
  let suggestion = null;
  // What to animate after the next draw.
  let motion = null;

  const game = () => state.game;
  const mySeat = () => state.you?.seat ?? null;
  const myTurn = () => live && game().phase === "playing" && game().turn?.seat === mySeat() && mySeat() !== null;
  const melds = () => (game().tentative ? game().tentative.table : game().table);
  const laid = () => new Set(game().tentative?.laid ?? []);
  const seatName = (seat) => seatLabel(state.room.seats.find((s) => s.seat === seat), seat);
  const me = () => game().seats.find((s) => s.seat === mySeat());
  const onRack = (tile) => (game().rack ?? []).includes(tile);
  // Before the initial meld only the tiles laid this turn may be touched (rule 2).
  const touchable = (meld) => me()?.initial_meld_done || meld.tiles.every((tile) => laid().has(tile));
  const refuse = (code) => showError({ code });

  const act = createMover(controller, {
    accepted: () => {
      selected = null;
      hint.clear();
    },
    settled: () => draw(),
  });

  // Where among a meld's tiles a drop at `point` lands, not counting the dragged tile itself.
  function dropPosition(meldElement, point, tile) {
    const tiles = [...meldElement.querySelectorAll(".tile")].filter((el) => el.dataset.tile !== tile);
    return insertionIndex(tiles, point);
  }

  // Where the pointer says, unless the tile only makes a valid meld somewhere else in it:
  // an imprecise drop (a finger on a phone) still lands where it fits. Undefined for a run in
  // the making: the server puts it in order, each joker where it fits (runOrder).
  function bestPosition(index, tile, pointed) {
    const others = melds()[index].tiles.filter((other) => other !== tile);
    if (runOrder([...others, tile])) return undefined;
    const withTileAt = (pos) => [...others.slice(0, pos), tile, ...others.slice(pos)];
    if (readMeld(withTileAt(pointed)).kind) return pointed;
    for (let pos = 0; pos <= others.length; pos += 1) {
      if (readMeld(withTileAt(pos)).kind) return pos;
    }
    return pointed;
  }

  // A tile put on the rack: a rack tile moves within it (any time); one laid this turn goes
  // back; any other table tile cannot leave the table.
  function toRack(tile, rackElement = null, point = null) {
    if (onRack(tile)) {
      if (rackElement && point) rack.reorder(tile, rackElement, point);
      else selected = null;
      return draw();
    }
    if (!myTurn()) return refuse("not_your_turn");
    if (laid().has(tile)) return act({ type: "return", tile });
    return refuse("tile_not_laid_this_turn");
  }

  function toMeld(tile, index, point = null, target = null) {
    if (!myTurn()) return refuse("not_your_turn");
    if (index === "new") return act({ type: "move", tile, to: "new" });
    const meld = melds()[index];
    if (!touchable(meld) || (!onRack(tile) && !laid().has(tile) && !me()?.initial_meld_done)) {
      return refuse("initial_meld_touches_table");
    }
    const pos = point && target ? bestPosition(index, tile, dropPosition(target, point, tile)) : undefined;
    return act(pos === undefined ? { type: "move", tile, to: index } : { type: "move", tile, to: index, pos });
  }

  enableDrag(root, (source, target, point) => {
    const [kind, value] = source.dataset.drag.split(":");
    const where = target.dataset.drop;
    if (kind === "tile") {
      if (where === "rack") toRack(value, target, point);
      else if (where === "new") toMeld(value, "new");
      else if (where.startsWith("meld:")) toMeld(value, Number(where.slice(5)), point, target);
    } else if (kind === "meld" && where.startsWith("meld:")) {
      if (!myTurn()) return refuse("not_your_turn");
      const into = Number(where.slice(5));
      if (!touchable(melds()[into])) return refuse("initial_meld_touches_table");
      if (into !== Number(value)) {
        const pos = mergePosition(Number(value), into, dropPosition(target, point, null));
        act(pos === undefined ? { type: "merge", meld: Number(value), into } : { type: "merge", meld: Number(value), into, pos });
      }
    }
  });

  function select(tile) {
    if (!myTurn()) return refuse("not_your_turn");
    const meld = melds().find((m) => m.tiles.includes(tile));
    if (meld && !touchable(meld)) return refuse("initial_meld_touches_table");
    selected = selected === tile ? null : tile;
    return draw();
  }

  // The selected tile into meld `index` where a tap on one of its tiles was.
  function placeAt(index, event) {
    if (!myTurn()) return refuse("not_your_turn");
    const target = root.querySelector(`.meld[data-meld="${index}"]`);
    return toMeld(selected, index, { x: event.clientX, y: event.clientY }, target);
  }

  // Where meld `from` goes into meld `into`: where it was dropped, unless the merged tiles only
  // read as a meld with it elsewhere; undefined for a run in the making, which the server puts
  // in order with its jokers where they fit.
  function mergePosition(from, into, pointed) {
    const moving = melds()[from].tiles;
    const others = melds()[into].tiles;
    if (runOrder([...others, ...moving])) return undefined;
    const mergedAt = (pos) => [...others.slice(0, pos), ...moving, ...others.slice(pos)];
    if (readMeld(mergedAt(pointed)).kind) return pointed;
    for (let pos = 0; pos <= others.length; pos += 1) {
      if (readMeld(mergedAt(pos)).kind) return pos;
    }
    return pointed;
  }

  // Meld `index` cut before its tile at `at`: the smaller part goes after the other melds (they
  // keep their places), so it is brought into view.
  async function split(index, at) {
    await act({ type: "split", meld: index, at });
    [...root.querySelectorAll("#rk-table .meld")].at(-1)?.scrollIntoView({ block: "nearest" });
  }

  function tapTarget(where) {
    if (!myTurn()) return refuse("not_your_turn");
    if (!selected) return refuse("pick_a_tile");
    if (where === "rack") return toRack(selected);
    if (where !== "new" && !melds()[where]) return toast(t("rk.no_such_meld", { n: where + 1 }), "error");
    return toMeld(selected, where);
  }

  // Enter or Space on a focused meld (or the rack) places the selected tile there.
  function onKey(event, where) {
    if (event.target !== event.currentTarget || !["Enter", " "].includes(event.key)) return;
    event.preventDefault();
    tapTarget(where);
  }

  // Whole moves in a key: N new meld, 1-9 (0 = 10) a meld, R back to the rack, E end the turn,
  // D draw (or pass), U undo the turn, Esc drop the selection.
  function onShortcut(event) {
    if (!state?.game || mySeat() === null || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest?.("input, select, textarea")) return;
    const key = event.key.toLowerCase();
    let done = true;
    if (key === "escape") {
      selected = null;
      draw();
    } else if (key === "n") tapTarget("new");
    else if (/^[0-9]$/.test(key)) tapTarget(key === "0" ? 9 : Number(key) - 1);
    else if (key === "r") tapTarget("rack");
    else if (key === "e") {
      if (!myTurn()) refuse("not_your_turn");
      else if (!game().tentative?.ready) toast(problemText() ?? errorText("no_tile_played"), "error");
      else act({ type: "end_turn" });
    } else if (key === "d") {
      if (!myTurn()) refuse("not_your_turn");
      else act({ type: game().pool_size > 0 ? "draw" : "pass" });
    } else if (key === "u") {
      if (!myTurn()) refuse("not_your_turn");
      else if (game().tentative) act({ type: "reset" });
    } else done = false;
    if (done) event.preventDefault();
  }
  if (live) document.addEventListener("keydown", onShortcut);

  // The tiles the other players laid or moved in their last turns: they stay marked until
  // that player's next turn, however quickly the turns pass.
  function markedTiles() {
    return new Set(log.lastMoves().flatMap(([, move]) => [...(move.tiles ?? []), ...(move.moved ?? [])]));
  }

  function tableArea() {
    const interactive = myTurn();
    const list = melds();
    const fresh = laid();
    const marked = markedTiles();
    const section = h(
      "section.rk-table",
      { id: "rk-table", "aria-label": t("rk.table") },
      list.length ? null : h("p.muted.empty-table", {}, t("rk.empty_table")),
      list.map((meld, index) =>
        meldElement(meld, index, {
          live,
          interactive,
          canTouch: interactive && touchable(meld),
          selected,
          fresh,
          marked,
          act,
          select,
          tapTarget,
          placeAt,
          split,
          onKey,
        }),
      ),
      interactive
        ? h("button.new-meld", { type: "button", id: "new-meld", dataset: { drop: "new" }, onclick: () => tapTarget("new") }, t("rk.new_meld"))
        : null,
    );
    // With a tile selected, the melds are one Tab stop and the arrows move between them.
    if (interactive && selected) rovingFocus(section, [...section.querySelectorAll(".meld[role=button]")]);
    return section;
  }

  function problem() {
    const tentative = game().tentative;
    return tentative && !tentative.ready ? tentative.problem : null;
  }

  // Why the turn cannot end yet, naming the bad meld when one is invalid: the server checks in
  // another order, and "no tile laid" after a bad merge would not say what to fix.
  function problemText() {
    const list = melds();
    const bad = list.findIndex((meld) => !meld.valid);
    if (bad >= 0) {
      const meld = list[bad];
      return t("rk.bad_meld", { n: bad + 1, tiles: listText(meld.tiles.map(tileName)), reason: whyInvalid(meld) });
    }
    const issue = problem();
    return issue ? errorText(issue.code, issue.message) : null;
  }

  function turnText() {
    const g = game();
    if (g.phase !== "playing") return t("rk.round_is_over");
    if (myTurn()) return t("rk.your_turn");
    return awayLine(state.room, g.turn.seat, seatName(g.turn.seat)) ?? t("rk.their_turn", { name: seatName(g.turn.seat) });
  }

  function statusArea() {
    const g = game();
    if (g.phase !== "playing") return null;
    const lines = [];
    if (myTurn()) {
      lines.push(h("p.your-turn", { id: "turn-line" }, turnText()));
      if (!me().initial_meld_done) {
        const points = g.tentative?.initial_points ?? 0;
        const needed = g.config.initial_meld_points;
        lines.push(h("p.initial", { id: "initial-points", class: points >= needed ? "enough" : "" }, t("rk.initial_progress", { points, needed })));
      }
      if (problem()) lines.push(h("p.problem", { id: "problem" }, problemText()));
    } else {
      lines.push(awayLineElement(state.room, g.turn.seat, seatName(g.turn.seat)) ?? h("p", { id: "turn-line" }, turnText()));
    }
    const facts = [h("span", { id: "pool" }, t("rk.pool_n", { n: g.pool_size }))];
    if (state.deadline) {
      const seconds = Math.max(0, Math.ceil((state.deadline - Date.now()) / 1000));
      facts.push(
        h("span.turn-timer", {}, t("rk.timer", { seconds: g.turn.timer_s }), " ", h("strong", { dataset: { deadline: state.deadline } }, t("room.timer", { seconds }))),
      );
    }
    lines.push(h("p.rk-facts", {}, facts));
    return h("div.rk-status", {}, lines);
  }

  function rackArea() {
    const g = game();
    if (mySeat() === null || !g.rack) return g.phase === "playing" && mySeat() === null ? h("p.muted", {}, t("room.spectator_view")) : null;
    return rack.element({
      rack: g.rack,
      interactive: myTurn(),
      selected,
      hinted: hintPlaces(suggestion, game().table),
      canReturn: Boolean(selected && laid().has(selected)),
      onSelect: select,
      onTarget: tapTarget,
      onKey,
    });
  }

  function turnButtons() {
    if (!myTurn()) return null;
    const g = game();
    const tentative = g.tentative;
    return h(
      "div.rk-buttons",
      {},
      h("button.primary", { type: "button", id: "end-turn", disabled: !tentative?.ready, onclick: () => act({ type: "end_turn" }) }, t("rk.end_turn")),
      h("button", { type: "button", id: "reset-turn", disabled: !tentative, onclick: () => act({ type: "reset" }) }, t("rk.reset")),
      g.pool_size > 0
        ? h("button", { type: "button", id: "draw-tile", onclick: () => act({ type: "draw" }) }, tentative ? t("rk.undo_and_draw") : t("rk.draw"))
        : h("button", { type: "button", id: "pass-turn", onclick: () => act({ type: "pass" }) }, t("rk.pass")),
      hint.button(state),
      h("span.muted.how-to", {}, selected ? t("rk.tap_target") : t("rk.how_to")),
      h("span.keys", {}, t("rk.keys")),
    );
  }

  function hintArea() {
    if (!suggestion || !myTurn()) return null;
    const dismiss = () => {
      hint.clear();
      draw();
    };
    return hintPanel(suggestion, hintPlaces(suggestion, game().table), { apply: () => act(suggestion), dismiss });
  }

  function resultPanel() {
    const result = roundResult(game(), seatName, (seat) => state.room.seats.find((s) => s.seat === seat) ?? null);
    if (result && live) result.append(nextHandBar(state, controller) ?? "");
    return result;
  }

  function banner() {
    const text = matchWinnerText(game(), seatName);
    return text ? matchBanner(state, controller, text) : null;
  }

  // The others' steps slide into place; tiles new on the table come from their player's seat.
  function animate() {
    if (!motion) return;
    const { before, seat } = motion;
    motion = null;
    const frame = root.querySelector("#rk-table");
    slideMoved(frame, ".tile", "tile", before);
    const from = document.querySelector(`.seat[data-seat="${seat}"]`)?.getBoundingClientRect();
    for (const tile of frame?.querySelectorAll(".tile") ?? []) {
      if (!before.items.has(tile.dataset.tile)) flyFrom(tile, from);
    }
  }

  function draw() {
    if (!state?.game) return;
    suggestion = hint.action(state);
    const dock = h("div.rk-dock", {}, rackArea(), turnButtons());
    keepFocus(root, () =>
      clear(
        root,
        banner(),
        resultPanel(),
        statusArea(),
        hintArea(),
        tableArea(),
        dock.childElementCount ? dock : null,
        log.element(seatName, { startOpen: window.innerWidth > 640 }),
        scoreBoard(game(), seatName),
      ),
    );
    animate();
    const outcome = root.querySelector("#match-banner") ?? root.querySelector("#round-result");
    if (outcome) reveal(outcome, `${game().round}:${Boolean(game().result)}`);
    else if (live) dealReturn(game().round);
  }

  // The words of the round's result, when it ended between two views.
  function roundNote(before, after) {
    const ended = after.last_round;
    return ended && !before.last_round ? () => roundSummary(ended, seatName) : null;
  }

  return {
    update(next) {
      const before = state?.game ?? null;
      const mover = before?.turn?.seat;
      if (live && before && mover !== undefined && mover !== mySeat() && root.isConnected) {
        motion = { before: positions(root.querySelector("#rk-table"), ".tile", "tile"), seat: mover };
      }
      state = next;
      const g = state.game;
      if (live) {
        log.follow(before, g, { me: mySeat(), seatName });
        // The round's result stays in the log after the next round takes it off the table.
        const words = before && g ? roundNote(before, g) : null;
        if (words) log.note(words);
      }
      // A page opened or reloaded mid-match has no earlier view to follow: the log and the
      // last-move marks are rebuilt from the server's log of the match.
      if (live && !before && g && !rebuilt && controller.matchViews) {
        rebuilt = true;
        controller.matchViews().then((views) => {
          log.rebuild(views, { me: mySeat(), noteFor: roundNote });
          draw();
        });
      }
      const visible = new Set([...(g?.rack ?? []), ...(g ? melds().flatMap((m) => m.tiles) : [])]);
      if (selected && !visible.has(selected)) selected = null;
      if (g && !(g.phase === "playing" && g.turn?.seat === state.you?.seat)) selected = null;
      draw();
    },
    redraw: draw,
    turnSeats: (s) => s.game?.to_act ?? [],
    turnText: () => (state?.game ? turnText() : ""),
    // What the room's seat list shows of each player here: tiles left, initial meld, score.
    seatExtras(seat) {
      const info = state?.game?.seats?.find((s) => s.seat === seat);
      if (!info) return null;
      const move = log.last(seat);
      return [
        h("span.rack-size", { title: t("rk.rack_size") }, t("rk.tiles_n", { n: info.rack_size }), " · ", t("rk.score_n", { n: info.score })),
        h("span.badge", { class: info.initial_meld_done ? "ready" : "" }, t(info.initial_meld_done ? "rk.melded" : "rk.not_melded")),
        move ? h("span.last-move-line", { id: `last-move-${seat}` }, t("log.last_move", { move: log.text({ ...move, seat: null }, seatName) })) : null,
      ];
    },
    dispose() {
      document.removeEventListener("keydown", onShortcut);
      root.remove();
    },
  };
}
