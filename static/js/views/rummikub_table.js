// The Rummikub table: every meld (valid or not, as it changes), one's own rack, the other
// players' rack sizes and initial-meld status, and the moves of a turn. Each drag or tap is one
// server step (move, split, merge, return), so the others watch the table being rearranged.

import { seatLabel } from "../game_text.js";
import { errorText, t } from "../i18n.js";
import { readMeld, sortRack } from "../rules/rummikub_melds.js";
import { clear, h, keepFocus } from "./dom.js";
import { enableDrag } from "./drag.js";
import { createHint } from "./hint.js";
import { createMover } from "./moves.js";
import { roundResult } from "./rummikub_results.js";
import { tileElement, tileName } from "./tiles.js";

const SORT_KEY = "meldhall.rack_sort";

export function createRummikubTable(container, controller) {
  const root = h("div.rummikub");
  container.replaceChildren(root);
  let state = null;
  let selected = null;
  let sortBy = localStorage.getItem(SORT_KEY) === "number" ? "number" : "colour";
  const hint = createHint(controller, () => draw());
  let suggestion = null;

  const game = () => state.game;
  const mySeat = () => state.you?.seat ?? null;
  const myTurn = () => Boolean(controller) && game().phase === "playing" && game().turn?.seat === mySeat() && mySeat() !== null;
  const melds = () => (game().tentative ? game().tentative.table : game().table);
  const laid = () => new Set(game().tentative?.laid ?? []);
  const seatName = (seat) => seatLabel(state.room.seats.find((s) => s.seat === seat), seat);

  const act = createMover(controller, {
    accepted: () => {
      selected = null;
      hint.clear();
    },
    settled: () => draw(),
  });

  // Where among a meld's tiles a drop at (x, y) lands, not counting the dragged tile itself.
  function dropPosition(meldElement, point, tile) {
    const tiles = [...meldElement.querySelectorAll(".tile")].filter((el) => el.dataset.tile !== tile);
    let pos = 0;
    for (const el of tiles) {
      const r = el.getBoundingClientRect();
      const rowAbove = r.bottom < point.y - r.height / 2;
      const sameRow = r.top <= point.y + r.height / 2 && r.bottom >= point.y - r.height / 2;
      if (rowAbove || (sameRow && r.left + r.width / 2 < point.x)) pos += 1;
    }
    return pos;
  }

  // Where the pointer says, unless the tile only makes a valid meld somewhere else in it:
  // an imprecise drop (a finger on a phone) still lands where it fits.
  function bestPosition(index, tile, pointed) {
    const others = melds()[index].tiles.filter((other) => other !== tile);
    const withTileAt = (pos) => [...others.slice(0, pos), tile, ...others.slice(pos)];
    if (readMeld(withTileAt(pointed)).kind) return pointed;
    for (let pos = 0; pos <= others.length; pos += 1) {
      if (readMeld(withTileAt(pos)).kind) return pos;
    }
    return pointed;
  }

  enableDrag(root, (source, target, point) => {
    if (!myTurn()) return;
    const [kind, value] = source.dataset.drag.split(":");
    const where = target.dataset.drop;
    if (kind === "tile") {
      if (where === "rack") {
        if (laid().has(value)) act({ type: "return", tile: value });
        return;
      }
      if (where === "new") act({ type: "move", tile: value, to: "new" });
      else if (where.startsWith("meld:")) {
        const to = Number(where.slice(5));
        act({ type: "move", tile: value, to, pos: bestPosition(to, value, dropPosition(target, point, value)) });
      }
    } else if (kind === "meld" && where.startsWith("meld:")) {
      const into = Number(where.slice(5));
      if (into !== Number(value)) {
        act({ type: "merge", meld: Number(value), into, pos: dropPosition(target, point, null) });
      }
    }
  });

  function select(tile) {
    selected = selected === tile ? null : tile;
    draw();
  }

  function tapTarget(where) {
    if (!selected || !myTurn()) return;
    if (where === "rack") {
      if (laid().has(selected)) act({ type: "return", tile: selected });
    } else if (where === "new") act({ type: "move", tile: selected, to: "new" });
    else act({ type: "move", tile: selected, to: where });
  }

  // Keyboard: Enter or Space on a focused meld (or the rack) places the selected tile there.
  function onKey(event, where) {
    if (event.target !== event.currentTarget || !["Enter", " "].includes(event.key)) return;
    event.preventDefault();
    tapTarget(where);
  }

  function playersStrip() {
    const g = game();
    return h(
      "ul.rk-players",
      {},
      g.seats.map((s) =>
        h(
          "li.rk-player",
          { dataset: { seat: s.seat }, class: g.turn?.seat === s.seat ? "turn" : "" },
          h("span.who", {}, seatName(s.seat), s.seat === mySeat() ? h("span.badge", {}, t("room.you")) : null),
          h("span.rack-size", { title: t("rk.rack_size") }, t("rk.tiles_n", { n: s.rack_size })),
          h("span.badge", { class: s.initial_meld_done ? "ready" : "" }, t(s.initial_meld_done ? "rk.melded" : "rk.not_melded")),
          h("span.score", {}, t("rk.score_n", { n: s.score })),
        ),
      ),
      h("li.rk-pool", { id: "pool" }, t("rk.pool_n", { n: g.pool_size })),
    );
  }

  function meldMark(meld) {
    if (meld.valid) return h("span.meld-mark.ok", { title: t(`rk.kind.${meld.kind}`) }, "✓ ", t(`rk.kind.${meld.kind}`), " · ", t("common.points", { n: meld.value }));
    const local = readMeld(meld.tiles);
    const reason = local.error ? t(`rk.why.${local.error}`) : (meld.reason ?? "");
    return h("span.meld-mark.bad", {}, "✗ ", reason);
  }

  function meldElement(meld, index, interactive) {
    const fresh = laid();
    const parts = [];
    meld.tiles.forEach((tile, at) => {
      if (at > 0 && interactive) {
        parts.push(
          h("button.split", { type: "button", title: t("rk.split_here"), "aria-label": t("rk.split_here"), onclick: () => act({ type: "split", meld: index, at }) }),
        );
      }
      parts.push(
        tileElement(tile, {
          drag: interactive ? `tile:${tile}` : null,
          onclick: interactive ? () => select(tile) : null,
          selected: selected === tile,
          fresh: fresh.has(tile),
          stands: meld.jokers?.[tile]?.length === 1 ? meld.jokers[tile][0] : null,
        }),
      );
    });
    return h(
      "div.meld",
      {
        class: meld.valid ? "valid" : "invalid",
        dataset: { drop: interactive ? `meld:${index}` : null, meld: index },
        tabindex: interactive && selected ? 0 : null,
        role: interactive && selected ? "button" : null,
        "aria-label": interactive && selected ? t("rk.put_here", { n: index + 1 }) : null,
        onclick: interactive ? (event) => {
          if (event.target.closest(".tile, .split, .grip")) return;
          tapTarget(index);
        } : null,
        onkeydown: interactive ? (event) => onKey(event, index) : null,
      },
      interactive ? h("button.grip", { type: "button", dataset: { drag: `meld:${index}` }, title: t("rk.drag_meld"), "aria-label": t("rk.drag_meld") }, "⠿") : null,
      h("div.meld-tiles", {}, parts),
      meldMark(meld),
      interactive ? jokerChoices(meld) : null,
    );
  }

  // A joker whose meaning is open (a group missing several colours) can be fixed by hand.
  function jokerChoices(meld) {
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
          {
            dataset: { joker },
            onchange: (event) => act({ type: "declare", joker, as: event.target.value || null }),
          },
          h("option", { value: "", selected: !declared }, t("rk.joker_any")),
          choices.map((face) => h("option", { value: face, selected: face === declared }, tileName(`${face}a`))),
        ),
      );
    });
  }

  function tableArea() {
    const interactive = myTurn();
    const list = melds();
    // Before the initial meld only the tiles laid this turn may be touched (rule 2).
    const me = game().seats.find((s) => s.seat === mySeat());
    const fresh = laid();
    const touchable = (meld) => interactive && (me?.initial_meld_done || meld.tiles.every((tile) => fresh.has(tile)));
    return h(
      "section.rk-table",
      { id: "rk-table", "aria-label": t("rk.table") },
      list.length ? null : h("p.muted.empty-table", {}, t("rk.empty_table")),
      list.map((meld, index) => meldElement(meld, index, touchable(meld))),
      interactive
        ? h("button.new-meld", { type: "button", id: "new-meld", dataset: { drop: "new" }, onclick: () => tapTarget("new") }, t("rk.new_meld"))
        : null,
    );
  }

  function turnLine() {
    const g = game();
    if (g.phase !== "playing") return null;
    const lines = [];
    if (myTurn()) {
      lines.push(h("p.your-turn", { id: "turn-line" }, t("rk.your_turn")));
      const me = g.seats.find((s) => s.seat === mySeat());
      if (!me.initial_meld_done) {
        const points = g.tentative?.initial_points ?? 0;
        const needed = g.config.initial_meld_points;
        lines.push(h("p.initial", { id: "initial-points", class: points >= needed ? "enough" : "" }, t("rk.initial_progress", { points, needed })));
      }
      if (g.tentative && !g.tentative.ready && g.tentative.problem) {
        lines.push(h("p.problem", { id: "problem" }, errorText(g.tentative.problem.code, g.tentative.problem.message)));
      }
    } else {
      lines.push(h("p", { id: "turn-line" }, t("rk.their_turn", { name: seatName(g.turn.seat) })));
    }
    if (state.deadline) {
      const seconds = Math.max(0, Math.ceil((state.deadline - Date.now()) / 1000));
      lines.push(
        h("p.turn-timer", {}, t("rk.timer", { seconds: g.turn.timer_s }), " ", h("strong", { dataset: { deadline: state.deadline } }, t("room.timer", { seconds }))),
      );
    }
    return h("div.rk-status", {}, lines);
  }

  function rackArea() {
    const g = game();
    if (mySeat() === null || !g.rack) return g.phase === "playing" && mySeat() === null ? h("p.muted", {}, t("room.spectator_view")) : null;
    const interactive = myTurn();
    const tiles = sortRack(g.rack, sortBy);
    const sortButton = (by) =>
      h("button.small", {
        type: "button",
        id: `sort-${by}`,
        "aria-pressed": String(sortBy === by),
        onclick: () => {
          sortBy = by;
          localStorage.setItem(SORT_KEY, by);
          draw();
        },
      }, t(`rk.sort_${by}`));
    return h(
      "section.rk-rack",
      {
        id: "rack",
        dataset: { drop: interactive ? "rack" : null },
        tabindex: interactive && selected && laid().has(selected) ? 0 : null,
        "aria-label": t("rk.your_rack", { n: tiles.length }),
        onkeydown: interactive ? (event) => onKey(event, "rack") : null,
        onclick: interactive ? (event) => {
          if (!event.target.closest(".tile, button")) tapTarget("rack");
        } : null,
      },
      h("div.rack-head", {}, h("span", {}, t("rk.your_rack", { n: tiles.length })), sortButton("colour"), sortButton("number")),
      h("div.rack-tiles", {}, tiles.map((tile) =>
        tileElement(tile, {
          drag: interactive ? `tile:${tile}` : null,
          onclick: interactive ? () => select(tile) : null,
          selected: selected === tile,
          hinted: hintPlaces().has(tile),
        }),
      )),
    );
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
      selected ? h("span.muted", {}, t("rk.tap_target")) : h("span.muted", {}, t("rk.how_to")),
    );
  }

  // The rack tiles the suggested play puts on the table (it replaces any steps taken so far).
  function hintPlaces() {
    if (suggestion?.type !== "play") return new Set();
    const before = new Set(game().table.flatMap((meld) => meld.tiles));
    return new Set(suggestion.table.flat().filter((tile) => !before.has(tile)));
  }

  function hintPanel() {
    if (!suggestion || !myTurn()) return null;
    const placed = hintPlaces();
    const apply = () => act(suggestion);
    const parts = [h("h3", {}, t("hint.title"))];
    if (suggestion.type === "play") {
      const names = [...placed].map(tileName).join(", ");
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
        h("button.quiet", { type: "button", id: "dismiss-hint", onclick: () => { hint.clear(); draw(); } }, t("hint.dismiss")),
      ),
    );
    return h("section.hint-panel", { id: "hint-panel", role: "status" }, parts);
  }

  function draw() {
    if (!state?.game) return;
    suggestion = hint.action(state);
    keepFocus(root, () =>
      clear(root, playersStrip(), turnLine(), hintPanel(), tableArea(), rackArea(), turnButtons(), roundResult(game(), seatName)),
    );
  }

  return {
    update(next) {
      state = next;
      const g = state.game;
      const visible = new Set([...(g?.rack ?? []), ...(g ? melds().flatMap((m) => m.tiles) : [])]);
      if (selected && !visible.has(selected)) selected = null;
      if (g && !(g.phase === "playing" && g.turn?.seat === state.you?.seat)) selected = null;
      draw();
    },
    redraw: draw,
    turnSeats: (s) => s.game?.to_act ?? [],
    dispose() {
      root.remove();
    },
  };
}
