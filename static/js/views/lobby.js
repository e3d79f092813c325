// The lobby: the form to start a game, the public rooms waiting for players, and joining by
// an invite link or room code.

import { api } from "../api.js";
import { gameName } from "../game_text.js";
import { t } from "../i18n.js";
import { createRoomForm } from "./create_form.js";
import { clear, h } from "./dom.js";
import { showError } from "./toasts.js";

const REFRESH_MS = 5000;
const BOT_LEVELS = ["easy", "normal", "hard"];

export function normalizeGames(data) {
  const list = Array.isArray(data) ? data : (data?.games ?? []);
  return list.map((game) => ({
    name: game.name,
    min: game.min_players ?? 2,
    max: game.max_players ?? 2,
    options: game.options ?? [],
    levels: game.bot_levels ?? BOT_LEVELS,
  }));
}

export function roomsList(data) {
  return Array.isArray(data) ? data : (data?.rooms ?? []);
}

export function lobbyPage(main, _params, { navigate }) {
  let rooms = [];
  let timer = null;
  let disposed = false;

  const createBox = h("section.panel.create");
  const roomsBox = h("section.panel.rooms");
  const joinBox = h("section.panel.join-code");
  main.replaceChildren(h("div.lobby", {}, createBox, h("div.lobby-side", {}, roomsBox, joinBox)));
  const create = createRoomForm(createBox, { navigate });

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
      create.setGames(normalizeGames(await api.games()));
    } catch (error) {
      showError(error);
    }
  }

  function redraw() {
    create.redraw();
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
