// Finished matches, a player's statistics, and the replay of one match step by step, drawn by
// the same table views as a live game (read-only): every hand face up once the match is over,
// a jump to each hand, and keys to step.

import { api } from "../api.js";
import { actionText } from "../action_text.js";
import { gameName, seatLabel } from "../game_text.js";
import { readWithKey } from "../identity.js";
import { isolate, language, t } from "../i18n.js";
import { avatarElement } from "./avatar.js";
import { clear, h } from "./dom.js";
import { nameElement } from "./names.js";
import { createGinTable } from "./gin_table.js";
import { createRummikubTable } from "./rummikub_table.js";
import { showError } from "./toasts.js";

const TABLES = { gin_rummy: createGinTable, rummikub: createRummikubTable };
const PLAY_EVERY_MS = 900;
const ALL = "all";

function when(iso) {
  if (!iso) return "";
  return new Date(iso).toLocaleString(language(), { dateStyle: "medium", timeStyle: "short" });
}

// A seat's name, isolated, and a link to its player's profile when it had one.
function seatNameLink(seat) {
  const name = nameElement(seatLabel(seat, seat.seat));
  return [avatarElement(seat), seat.player_id ? h("a", { href: `/p/${seat.player_id}`, "data-link": true }, name) : name];
}

export function historyPage(main, [matchId]) {
  return matchId ? replayPage(main, matchId) : listPage(main);
}

function listPage(main) {
  let matches = null;
  let player = "";
  let stats = null;
  let game = "";

  async function load() {
    const query = new URLSearchParams({ status: "finished", limit: "50" });
    if (player) query.set("player", player);
    if (game) query.set("game", game);
    try {
      // With the player's key the list holds the player's own private matches too.
      const page = await readWithKey((key) => api.matches(`?${query}`, key));
      matches = page.items ?? [];
      stats = player ? await api.playerStats(player) : null;
    } catch (error) {
      matches = [];
      showError(error);
    }
    draw();
  }

  function draw() {
    const nameInput = h("input", { id: "history-player", type: "search", value: player, placeholder: t("lobby.name_placeholder") });
    const gameSelect = h(
      "select",
      { id: "history-game" },
      h("option", { value: "" }, t("history.all_games")),
      ["gin_rummy", "rummikub"].map((g) => h("option", { value: g, selected: g === game }, gameName(g))),
    );
    const filter = h(
      "form.inline.history-filter",
      {
        onsubmit: (event) => {
          event.preventDefault();
          player = nameInput.value.trim();
          game = gameSelect.value;
          load();
        },
      },
      h("label", { for: "history-player" }, t("history.player_filter")),
      nameInput,
      gameSelect,
      h("button", { type: "submit" }, t("history.filter")),
    );
    let body;
    if (matches === null) body = h("p.muted", {}, t("common.loading"));
    else if (!matches.length) body = h("p.muted", {}, t("history.none"));
    else {
      body = h(
        "table.history-list",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, t("lobby.game")), h("th", {}, t("history.players")), h("th", {}, t("history.winner")), h("th", {}, t("history.when")), h("th"))),
        h(
          "tbody",
          {},
          matches.map((m) =>
            h(
              "tr",
              { dataset: { match: m.match_id } },
              h("td.game", {}, gameName(m.game)),
              h("td.names", { dataset: { label: t("history.players") } }, m.seats.map((s, i) => [i ? ", " : "", seatNameLink(s), s.final_score === null ? "" : ` (${s.final_score})`])),
              h("td.names", { dataset: { label: t("history.winner") } }, m.winners.map((w, i) => [i ? ", " : "", seatNameLink(m.seats[w])])),
              h("td", { dataset: { label: t("history.when") } }, when(m.finished_at ?? m.created_at)),
              h("td.replay-cell", {}, h("a.button.small", { href: `/history/${m.match_id}`, "data-link": true }, t("history.replay"))),
            ),
          ),
        ),
      );
    }
    clear(
      main,
      h(
        "section.panel.history",
        {},
        h("h1", {}, t("history.title")),
        filter,
        stats ? h("p.stats", { id: "player-stats" }, t("history.stats", { name: stats.name, played: stats.matches_played, won: stats.matches_won })) : null,
        body,
      ),
    );
  }

  draw();
  load();
  return { redraw: draw, dispose() {} };
}

function describe(step, match) {
  const who = step.seat === null ? t("history.system") : seatLabel(match.seats[step.seat], step.seat);
  return t("history.action_by", { who, action: actionText(match.game, step.action ?? {}) });
}

function replayPage(main, matchId) {
  let replay = null;
  let index = 0;
  // null: as a spectator; a seat: as that player saw it; ALL: every hand face up (a finished
  // match's replay holds each seat's view).
  let viewpoint = ALL;
  let timer = null;
  let table = null;
  const tableBox = h("section.table-area.replay-table");
  const controls = h("section.panel.replay-controls");
  main.replaceChildren(h("div.replay", {}, h("a", { href: "/history", "data-link": true }, t("history.back")), controls, tableBox));

  function viewAt(step) {
    const spectator = step === 0 ? replay.initial_view : replay.steps[step - 1].view;
    const seats = step === 0 ? replay.initial_seat_views : replay.steps[step - 1].seat_views;
    if (viewpoint === ALL) return seats ? everyHand(spectator, seats) : spectator;
    return viewpoint === null ? spectator : seats?.[viewpoint];
  }

  // The first step of each hand (or round): [number, step].
  function handStarts() {
    const number = (view) => view?.hand_number ?? view?.round ?? null;
    const starts = [[number(replay.initial_view), 0]];
    replay.steps.forEach((record, i) => {
      const n = number(record.view);
      if (n !== null && n !== starts[starts.length - 1][0]) starts.push([n, i + 1]);
    });
    return starts.filter(([n]) => n !== null);
  }

  function onKey(event) {
    if (!replay || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest?.("input, select, textarea, button")) return;
    const starts = handStarts().map(([, step]) => step);
    const moves = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1,
      Home: 0,
      End: replay.steps.length,
      PageDown: starts.find((step) => step > index) ?? replay.steps.length,
      PageUp: [...starts].reverse().find((step) => step < index) ?? 0,
    };
    if (!(event.key in moves)) return;
    event.preventDefault();
    go(moves[event.key]);
  }
  document.addEventListener("keydown", onKey);

  function stateAt(step) {
    const match = replay.match;
    return {
      room: {
        room_id: match.room_id,
        game: match.game,
        players: match.players,
        status: "finished",
        seats: match.seats.map((s) => ({ ...s, connected: false, ready: false })),
      },
      you: { seat: viewpoint === ALL ? null : viewpoint },
      game: viewAt(step) ?? null,
      deadline: null,
    };
  }

  function stop() {
    clearInterval(timer);
    timer = null;
  }

  function go(step) {
    index = Math.max(0, Math.min(replay.steps.length, step));
    if (index === replay.steps.length) stop();
    draw();
  }

  function drawControls() {
    const total = replay.steps.length;
    const seats = replay.initial_seat_views ? replay.match.seats : [];
    const button = (key, id, onclick, disabled) => h("button", { type: "button", id, onclick, disabled }, t(key));
    clear(
      controls,
      h("h1", {}, gameName(replay.match.game), " · ", replay.match.seats.map((s, i) => [i ? ", " : "", nameElement(seatLabel(s, s.seat))])),
      h(
        "div.replay-bar",
        {},
        button("history.first", "step-first", () => go(0), index === 0),
        button("history.prev", "step-prev", () => go(index - 1), index === 0),
        button(timer ? "history.pause" : "history.play", "step-play", () => {
          if (timer) stop();
          else timer = setInterval(() => go(index + 1), PLAY_EVERY_MS);
          drawControls();
        }, index === total),
        button("history.next", "step-next", () => go(index + 1), index === total),
        button("history.last", "step-last", () => go(total), index === total),
        h("input", {
          type: "range",
          min: 0,
          max: total,
          value: index,
          "aria-label": t("history.step", { n: index, total }),
          oninput: (event) => go(Number(event.target.value)),
        }),
        handPicker(),
        seats.length
          ? h(
              "select",
              {
                id: "viewpoint",
                "aria-label": t("room.watch"),
                onchange: (event) => {
                  const value = event.target.value;
                  viewpoint = value === ALL ? ALL : value === "" ? null : Number(value);
                  table?.dispose();
                  table = null;
                  draw();
                },
              },
              h("option", { value: ALL, selected: viewpoint === ALL }, t("history.every_hand")),
              h("option", { value: "", selected: viewpoint === null }, t("room.spectating")),
              seats.map((s) => h("option", { value: s.seat, selected: viewpoint === s.seat }, isolate(seatLabel(s, s.seat)))),
            )
          : null,
      ),
      h("p.muted.replay-keys", {}, t("history.keys")),
      h("p.step-line", { id: "step-line" }, t("history.step", { n: index, total }), index > 0 ? ` — ${describe(replay.steps[index - 1], replay.match)}` : ""),
    );
  }

  // A jump to the first step of each hand (or round).
  function handPicker() {
    const starts = handStarts();
    if (starts.length < 2) return null;
    const key = replay.match.game === "rummikub" ? "history.round_n" : "history.hand_n";
    const current = [...starts].reverse().find(([, step]) => step <= index)?.[1];
    return h(
      "select",
      { id: "replay-hand", "aria-label": t("history.jump_hand"), onchange: (event) => go(Number(event.target.value)) },
      starts.map(([n, step]) => h("option", { value: step, selected: step === current }, t(key, { n }))),
    );
  }

  function draw() {
    if (!replay) {
      clear(controls, h("p.muted", {}, t("common.loading")));
      return;
    }
    drawControls();
    const state = stateAt(index);
    if (!state.game) {
      clear(tableBox, h("p.muted", {}, t("history.no_view")));
      table = null;
      return;
    }
    if (!table) table = TABLES[replay.match.game]?.(tableBox, null) ?? null;
    table?.update(state);
  }

  readWithKey((key) => api.replay(matchId, key))
    .then((data) => {
      replay = data;
      draw();
    })
    .catch((error) => {
      showError(error);
      clear(controls, h("p.muted", {}, t("history.unavailable")));
    });
  draw();
  return {
    redraw() {
      draw();
      table?.redraw();
    },
    dispose() {
      stop();
      document.removeEventListener("keydown", onKey);
      table?.dispose();
    },
  };
}

// The spectator's view with each player's cards filled in from that player's own view.
function everyHand(spectator, seatViews) {
  if (!spectator?.tables) return spectator;
  const tables = spectator.tables.map((table) => ({
    ...table,
    players: table.players.map((player) => ({ ...player, cards: player.cards ?? seatViews[player.seat]?.me?.hand ?? null })),
  }));
  return { ...spectator, tables };
}
