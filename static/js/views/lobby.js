// The lobby: create a room (game, options with their defaults, seats, bots, public or
// private), the public rooms waiting for players, and joining by link.

import { api } from "../api.js";
import { gameName, optionDescription, optionLabel, optionValueText } from "../game_text.js";
import { t } from "../i18n.js";
import { session } from "../session.js";
import { clear, h } from "./dom.js";
import { showError } from "./toasts.js";

const REFRESH_MS = 5000;
const BOT_LEVELS = ["easy", "normal", "hard"];

export function normalizeGames(data) {
  const list = Array.isArray(data) ? data : (data?.games ?? []);
  return list.map((game) => ({
    name: game.name ?? game.game ?? game.id,
    min: game.min_players ?? game.seat_range?.[0] ?? game.seats?.min ?? 2,
    max: game.max_players ?? game.seat_range?.[1] ?? game.seats?.max ?? 2,
    options: game.options ?? [],
    levels: game.bot_levels ?? BOT_LEVELS,
  }));
}

export function roomsList(data) {
  return Array.isArray(data) ? data : (data?.rooms ?? []);
}

export function lobbyPage(main, _params, { navigate }) {
  const form = {
    game: null,
    name: session.name(),
    players: 2,
    options: {},
    seats: {},
    public: true,
    spectators: true,
  };
  let games = [];
  let rooms = [];
  let timer = null;
  let disposed = false;

  const createBox = h("section.panel.create");
  const roomsBox = h("section.panel.rooms");
  const joinBox = h("section.panel.join-code");
  main.replaceChildren(h("div.lobby", {}, createBox, h("div.lobby-side", {}, roomsBox, joinBox)));

  const current = () => games.find((g) => g.name === form.game);

  function pickGame(name) {
    const game = games.find((g) => g.name === name);
    if (!game) return;
    form.game = name;
    form.players = Math.min(Math.max(form.players, game.min), game.max);
    form.options = Object.fromEntries(game.options.map((o) => [o.name, o.default]));
    form.seats = {};
    drawCreate();
  }

  function optionInput(game, option) {
    const id = `opt-${option.name}`;
    const value = form.options[option.name];
    const set = (v) => {
      form.options[option.name] = v;
    };
    const choices = option.choices ?? option.enum ?? null;
    if (option.type === "bool" || option.type === "boolean" || typeof option.default === "boolean") {
      return h("input", { id, type: "checkbox", checked: Boolean(value), onchange: (e) => set(e.target.checked) });
    }
    if (Array.isArray(choices)) {
      return h(
        "select",
        { id, onchange: (e) => set(choices[Number(e.target.value)]) },
        choices.map((c, i) =>
          h("option", { value: i, selected: c === value }, optionValueText(game.name, option.name, c)),
        ),
      );
    }
    if (option.type === "int" || option.type === "integer" || typeof option.default === "number") {
      return h("input", {
        id,
        type: "number",
        inputmode: "numeric",
        min: option.min ?? option.minimum,
        max: option.max ?? option.maximum,
        step: option.step ?? 1,
        value,
        onchange: (e) => set(e.target.value === "" ? option.default : Number(e.target.value)),
      });
    }
    return h("input", { id, type: "text", value: value ?? "", onchange: (e) => set(e.target.value) });
  }

  function seatRows(game) {
    const rows = [];
    for (let seat = 0; seat < form.players; seat += 1) {
      if (seat === 0) {
        rows.push(h("li", {}, h("span.seat-no", {}, t("room.seat_n", { n: 1 })), t("lobby.seat_you")));
        continue;
      }
      const choice = form.seats[seat] ?? "human";
      rows.push(
        h(
          "li",
          {},
          h("label.seat-no", { for: `seat-${seat}` }, t("room.seat_n", { n: seat + 1 })),
          h(
            "select",
            { id: `seat-${seat}`, onchange: (e) => (form.seats[seat] = e.target.value) },
            h("option", { value: "human", selected: choice === "human" }, t("lobby.seat_open")),
            game.levels.map((level) =>
              h("option", { value: level, selected: choice === level }, t("lobby.seat_bot", { level: t(`bot.${level}`) })),
            ),
          ),
        ),
      );
    }
    return rows;
  }

  function drawCreate() {
    const game = current();
    if (!game) {
      clear(createBox, h("h2", {}, t("lobby.create")), h("p.muted", {}, t("common.loading")));
      return;
    }
    const nameInput = h("input", {
      id: "create-name",
      type: "text",
      maxlength: 32,
      autocomplete: "nickname",
      required: true,
      value: form.name,
      placeholder: t("lobby.name_placeholder"),
      oninput: (e) => (form.name = e.target.value),
    });
    const playersSelect = h(
      "select",
      {
        id: "create-players",
        onchange: (e) => {
          form.players = Number(e.target.value);
          drawCreate();
        },
      },
      Array.from({ length: game.max - game.min + 1 }, (_, i) => game.min + i).map((n) =>
        h("option", { value: n, selected: n === form.players }, String(n)),
      ),
    );
    const submit = async (event) => {
      event.preventDefault();
      const name = nameInput.value.trim();
      if (!name) {
        nameInput.focus();
        showError({ code: "name_required" });
        return;
      }
      session.setName(name);
      const bots = Object.entries(form.seats)
        .filter(([seat, level]) => level !== "human" && Number(seat) < form.players)
        .map(([seat, level]) => ({ seat: Number(seat), level }));
      button.disabled = true;
      try {
        const room = await api.createRoom({
          game: game.name,
          players: form.players,
          options: form.options,
          bots,
          public: form.public,
          spectators: form.spectators,
        });
        const joined = await api.join(room.room_id, name, 0);
        session.setSeat(room.room_id, joined.seat, joined.token);
        navigate(`/r/${room.room_id}`);
      } catch (error) {
        showError(error);
        button.disabled = false;
      }
    };
    const button = h("button.primary", { type: "submit", id: "create-room" }, t("lobby.create_button"));
    clear(
      createBox,
      h("h2", {}, t("lobby.create")),
      h(
        "form",
        { onsubmit: submit },
        h(
          "fieldset.game-pick",
          {},
          h("legend", {}, t("lobby.game")),
          games.map((g) =>
            h(
              "label.game-choice",
              { class: g.name === form.game ? "chosen" : "" },
              h("input", {
                type: "radio",
                name: "game",
                value: g.name,
                checked: g.name === form.game,
                onchange: () => pickGame(g.name),
              }),
              h("span.game-title", {}, gameName(g.name)),
              h("span.game-blurb", {}, t(`game.${g.name}.blurb`)),
            ),
          ),
        ),
        h("div.field", {}, h("label", { for: "create-name" }, t("lobby.your_name")), nameInput),
        h("div.field", {}, h("label", { for: "create-players" }, t("lobby.players")), playersSelect),
        h("fieldset.seats", {}, h("legend", {}, t("lobby.seats")), h("ul.seat-list", {}, seatRows(game))),
        game.options.length
          ? h(
              "fieldset.options",
              {},
              h("legend", {}, t("lobby.options")),
              game.options.map((option) =>
                h(
                  "div.option",
                  {},
                  h("label", { for: `opt-${option.name}` }, optionLabel(game.name, option.name)),
                  optionInput(game, option),
                  h(
                    "p.option-help",
                    {},
                    optionDescription(game.name, option),
                    " ",
                    h("span.default", {}, t("lobby.default_is", { value: optionValueText(game.name, option.name, option.default) })),
                  ),
                ),
              ),
            )
          : null,
        h(
          "div.field.checks",
          {},
          h(
            "label",
            {},
            h("input", { type: "checkbox", id: "create-public", checked: form.public, onchange: (e) => (form.public = e.target.checked) }),
            t("lobby.public"),
          ),
          h("p.option-help", {}, t("lobby.public_help")),
          h(
            "label",
            {},
            h("input", {
              type: "checkbox",
              id: "create-spectators",
              checked: form.spectators,
              onchange: (e) => (form.spectators = e.target.checked),
            }),
            t("lobby.spectators"),
          ),
        ),
        button,
      ),
    );
  }

  function seatsText(room) {
    const seats = room.seats ?? [];
    const taken = seats.filter((s) => s.kind && s.kind !== "empty").length;
    return t("lobby.seats_taken", { taken, total: room.players ?? seats.length });
  }

  function drawRooms() {
    const list = rooms.length
      ? h(
          "ul.room-list",
          {},
          rooms.map((room) =>
            h(
              "li.room-item",
              { dataset: { room: room.room_id } },
              h("span.room-game", {}, gameName(room.game)),
              h("span.room-host", {}, (room.seats ?? []).filter((s) => s.name).map((s) => s.name).join(", ")),
              h("span.room-seats", {}, seatsText(room)),
              h("span.room-status", {}, t(`status.${room.status}`)),
              h(
                "span.room-actions",
                {},
                h("a.button", { href: `/r/${room.room_id}`, "data-link": true }, t("lobby.join")),
                room.spectators === false
                  ? null
                  : h("a.button.quiet", { href: `/r/${room.room_id}?watch=1`, "data-link": true }, t("lobby.watch")),
              ),
            ),
          ),
        )
      : h("p.muted", {}, t("lobby.no_rooms"));
    clear(roomsBox, h("h2", {}, t("lobby.public_rooms")), list);
  }

  function drawJoin() {
    const input = h("input", { id: "join-code", type: "text", placeholder: t("lobby.code_placeholder") });
    const go = (event) => {
      event.preventDefault();
      const raw = input.value.trim();
      const match = /(?:\/r\/)?([A-Za-z0-9_-]+)\/?(?:\?.*)?$/.exec(raw);
      if (match) navigate(`/r/${match[1]}`);
    };
    clear(
      joinBox,
      h("h2", {}, t("lobby.join_code")),
      h("form.inline", { onsubmit: go }, input, h("button", { type: "submit" }, t("lobby.join"))),
    );
  }

  async function loadRooms() {
    try {
      rooms = roomsList(await api.rooms());
    } catch (error) {
      if (rooms.length === 0) showError(error);
    }
    if (!disposed) drawRooms();
  }

  async function loadGames() {
    try {
      games = normalizeGames(await api.games());
      if (games.length) pickGame(games[0].name);
    } catch (error) {
      showError(error);
    }
  }

  function redraw() {
    drawCreate();
    drawRooms();
    drawJoin();
  }

  redraw();
  loadGames();
  loadRooms();
  timer = setInterval(loadRooms, REFRESH_MS);
  return {
    redraw,
    dispose() {
      disposed = true;
      clearInterval(timer);
    },
  };
}
