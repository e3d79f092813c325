// The leaderboards: one game and mode (its number of players), everyone or one's circle (the
// players one has shared a match with), a page of rated players at a time.

import { api } from "../api.js";
import { gameName } from "../game_text.js";
import { me, readWithKey } from "../identity.js";
import { t } from "../i18n.js";
import { clear, h } from "./dom.js";
import { nameElement } from "./names.js";
import { showError } from "./toasts.js";

const GAMES = ["gin_rummy", "rummikub"];
const MODES = [2, 3, 4];
const PAGE = 20;

export function leaderboardPage(main) {
  const query = new URLSearchParams(location.search);
  const choice = {
    game: GAMES.includes(query.get("game")) ? query.get("game") : GAMES[0],
    mode: MODES.includes(Number(query.get("mode"))) ? Number(query.get("mode")) : 2,
    circle: query.get("circle") === "1" && me() !== null,
    offset: 0,
  };
  let board = null;
  let disposed = false;
  const controls = h("div.board-controls");
  const body = h("div.board-body");
  main.replaceChildren(h("section.panel.leaderboard", {}, h("h1", {}, t("board.title")), controls, body));

  function remember() {
    const params = new URLSearchParams({ game: choice.game, mode: String(choice.mode) });
    if (choice.circle) params.set("circle", "1");
    history.replaceState(null, "", `/leaderboards?${params}`);
  }

  async function load() {
    remember();
    board = null;
    drawBody();
    const params = { mode: String(choice.mode), limit: String(PAGE), offset: String(choice.offset) };
    if (choice.circle && me()) params.with = me().id;
    try {
      board = await readWithKey((key) => api.leaderboard(choice.game, params, key));
    } catch (error) {
      board = { items: [], total: 0, limit: PAGE, offset: 0 };
      showError(error);
    }
    if (!disposed) drawBody();
  }

  function change(field, value) {
    choice[field] = value;
    choice.offset = 0;
    drawControls();
    load();
  }

  function drawControls() {
    const radio = (value, label, disabled) =>
      h(
        "label.scope",
        {},
        h("input", {
          type: "radio",
          name: "board-scope",
          id: value ? "board-circle" : "board-everyone",
          checked: choice.circle === value,
          disabled,
          onchange: () => change("circle", value),
        }),
        label,
      );
    clear(
      controls,
      h(
        "div.field",
        {},
        h("label", { for: "board-game" }, t("lobby.game")),
        h(
          "select",
          { id: "board-game", onchange: (e) => change("game", e.target.value) },
          GAMES.map((g) => h("option", { value: g, selected: g === choice.game }, gameName(g))),
        ),
      ),
      h(
        "div.field",
        {},
        h("label", { for: "board-mode" }, t("board.mode")),
        h(
          "select",
          { id: "board-mode", onchange: (e) => change("mode", Number(e.target.value)) },
          MODES.map((n) => h("option", { value: n, selected: n === choice.mode }, t(choice.game === "gin_rummy" && n === 4 ? "board.players_pairs" : "board.players_n", { n }))),
        ),
      ),
      h(
        "fieldset.board-scope",
        {},
        h("legend", {}, t("board.who")),
        radio(false, t("board.everyone"), false),
        radio(true, t("board.circle"), me() === null),
      ),
    );
  }

  function pager() {
    const pages = Math.max(1, Math.ceil(board.total / PAGE));
    const page = Math.floor(choice.offset / PAGE) + 1;
    const go = (offset) => {
      choice.offset = offset;
      load();
    };
    return h(
      "nav.pager",
      { "aria-label": t("board.pages") },
      h("button", { type: "button", id: "board-prev", disabled: page <= 1, onclick: () => go(choice.offset - PAGE) }, t("board.prev")),
      h("span", { id: "board-page" }, t("board.page", { n: page, total: pages })),
      h("button", { type: "button", id: "board-next", disabled: page >= pages, onclick: () => go(choice.offset + PAGE) }, t("board.next")),
    );
  }

  function drawBody() {
    if (!board) {
      clear(body, h("p.muted", {}, t("common.loading")));
      return;
    }
    if (!board.items.length) {
      clear(body, h("p.muted", { id: "board-empty" }, t(choice.circle ? "board.empty_circle" : "board.empty")));
      return;
    }
    const mine = me()?.id;
    clear(
      body,
      h(
        "table.board",
        { id: "board" },
        h("thead", {}, h("tr", {}, h("th.num", {}, t("board.rank")), h("th", {}, t("board.name")), h("th.num", {}, t("board.rating")), h("th.num", {}, t("profile.matches")))),
        h(
          "tbody",
          {},
          board.items.map((row) =>
            h(
              "tr",
              { dataset: { player: row.player_id }, class: row.player_id === mine ? "mine" : "" },
              h("td.num", {}, String(row.rank)),
              h(
                "td.names",
                {},
                h("a", { href: `/p/${row.player_id}`, "data-link": true }, nameElement(row.name)),
                row.kind === "bot" ? h("span.badge.bot", {}, t("room.bot")) : null,
              ),
              h(
                "td.num",
                {},
                String(row.rating),
                row.provisional ? h("span.badge.provisional", { title: t("rating.provisional_help") }, t("rating.provisional_short")) : null,
              ),
              h("td.num", {}, String(row.matches)),
            ),
          ),
        ),
      ),
      pager(),
    );
  }

  function redraw() {
    main.querySelector(".leaderboard h1").textContent = t("board.title");
    drawControls();
    drawBody();
  }

  drawControls();
  load();
  return {
    redraw,
    dispose() {
      disposed = true;
    },
  };
}
