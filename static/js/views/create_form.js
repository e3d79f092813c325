// The lobby's "start a game" form: the game, your name, the seats (open or a bot), and under
// "More options" every variant option with its default explained, and whether the room is
// listed, watchable, gives hints and is rated.

import { api } from "../api.js";
import { gameName, optionDescription, optionLabel, optionValueText } from "../game_text.js";
import { t } from "../i18n.js";
import { session } from "../session.js";
import { clear, h } from "./dom.js";
import { asPlayer } from "./identity_dialog.js";
import { showError } from "./toasts.js";

function optionInput(game, option, form) {
  const id = `opt-${option.name}`;
  const value = form.options[option.name];
  const set = (v) => {
    form.options[option.name] = v;
  };
  const choices = option.choices ?? option.enum ?? null;
  if (option.type === "bool" || typeof option.default === "boolean") {
    return h("input", { id, type: "checkbox", checked: Boolean(value), onchange: (e) => set(e.target.checked) });
  }
  if (Array.isArray(choices)) {
    return h(
      "select",
      { id, onchange: (e) => set(choices[Number(e.target.value)]) },
      choices.map((c, i) => h("option", { value: i, selected: c === value }, optionValueText(game.name, option.name, c))),
    );
  }
  if (option.type === "int" || typeof option.default === "number") {
    return h("input", {
      id,
      type: "number",
      inputmode: "numeric",
      min: option.min,
      max: option.max,
      step: 1,
      value,
      onchange: (e) => set(e.target.value === "" ? option.default : Number(e.target.value)),
    });
  }
  return h("input", { id, type: "text", value: value ?? "", onchange: (e) => set(e.target.value) });
}

function optionRow(game, option, form) {
  const fallback = optionValueText(game.name, option.name, option.default);
  return h(
    "div.option",
    {},
    h("label", { for: `opt-${option.name}` }, optionLabel(game.name, option.name)),
    optionInput(game, option, form),
    h(
      "p.option-help",
      {},
      optionDescription(game.name, option),
      " ",
      h("span.default", {}, t("lobby.default_is", { value: fallback })),
    ),
  );
}

function seatRow(game, seat, form) {
  if (seat === 0) {
    return h("li", {}, h("span.seat-no", {}, t("room.seat_n", { n: 1 })), t("lobby.seat_you"));
  }
  const choice = form.seats[seat] ?? "human";
  const levels = game.levels.map((level) =>
    h("option", { value: level, selected: choice === level }, t("lobby.seat_bot", { level: t(`bot.${level}`) })),
  );
  return h(
    "li",
    {},
    h("label.seat-no", { for: `seat-${seat}` }, t("room.seat_n", { n: seat + 1 })),
    h(
      "select",
      { id: `seat-${seat}`, onchange: (e) => (form.seats[seat] = e.target.value) },
      h("option", { value: "human", selected: choice === "human" }, t("lobby.seat_open")),
      levels,
    ),
  );
}

function checkbox(id, checked, onchange, label) {
  return h("label", {}, h("input", { type: "checkbox", id, checked, onchange: (e) => onchange(e.target.checked) }), label);
}

export function createRoomForm(box, { navigate }) {
  const form = {
    game: null,
    name: session.name(),
    players: 2,
    options: {},
    seats: {},
    // Private unless chosen: a friends' room is reached by its invite link, not by strangers.
    public: false,
    spectators: true,
    hints: true,
    // A finished match moves its players' ratings unless friends choose to play for fun.
    rated: true,
    chat: true,
    more: false,
  };
  let games = [];
  const current = () => games.find((g) => g.name === form.game);

  function pickGame(name) {
    const game = games.find((g) => g.name === name);
    if (!game) return;
    form.game = name;
    form.players = Math.min(Math.max(form.players, game.min), game.max);
    form.options = Object.fromEntries(game.options.map((o) => [o.name, o.default]));
    form.seats = {};
    draw();
  }

  async function submit(event, button) {
    event.preventDefault();
    const name = form.name.trim();
    if (!name) {
      box.querySelector("#create-name").focus();
      showError({ code: "name_required" });
      return;
    }
    const bots = Object.entries(form.seats)
      .filter(([seat, level]) => level !== "human" && Number(seat) < form.players)
      .map(([seat, level]) => ({ seat: Number(seat), level }));
    button.disabled = true;
    try {
      let room = null;
      const joined = await asPlayer(name, async (key) => {
        room ??= await createRoom(bots);
        return api.join(room.room_id, name, 0, key);
      });
      if (!joined) {
        button.disabled = false;
        return;
      }
      session.setName(name);
      session.setSeat(room.room_id, joined.seat, joined.token);
      navigate(`/r/${room.room_id}`);
    } catch (error) {
      showError(error);
      button.disabled = false;
    }
  }

  function createRoom(bots) {
    return api.createRoom({
      game: form.game,
      players: form.players,
      options: form.options,
      bots,
      public: form.public,
      spectators: form.spectators,
      hints: form.hints,
      rated: form.rated,
      chat: form.chat,
    });
  }

  function gamePicker() {
    return h(
      "fieldset.game-pick",
      {},
      h("legend", {}, t("lobby.game")),
      games.map((g) =>
        h(
          "label.game-choice",
          { class: g.name === form.game ? "chosen" : "" },
          h("input", { type: "radio", name: "game", value: g.name, checked: g.name === form.game, onchange: () => pickGame(g.name) }),
          h("span.game-title", {}, gameName(g.name)),
          h("span.game-blurb", {}, t(`game.${g.name}.blurb`)),
        ),
      ),
    );
  }

  function basics(game) {
    const name = h("input", {
      id: "create-name",
      type: "text",
      maxlength: 32,
      autocomplete: "nickname",
      required: true,
      value: form.name,
      placeholder: t("lobby.name_placeholder"),
      oninput: (e) => (form.name = e.target.value),
    });
    const counts = Array.from({ length: game.max - game.min + 1 }, (_, i) => game.min + i);
    const players = h(
      "select",
      {
        id: "create-players",
        onchange: (e) => {
          form.players = Number(e.target.value);
          draw();
        },
      },
      counts.map((n) => h("option", { value: n, selected: n === form.players }, String(n))),
    );
    return [
      h("div.field", {}, h("label", { for: "create-name" }, t("lobby.your_name")), name),
      h("div.field", {}, h("label", { for: "create-players" }, t("lobby.players")), players),
    ];
  }

  function draw() {
    const game = current();
    if (!game) {
      clear(box, h("h2", {}, t("lobby.create")), h("p.muted", {}, t("common.loading")));
      return;
    }
    const button = h("button.primary", { type: "submit", id: "create-room" }, t("lobby.create_button"));
    const seats = Array.from({ length: form.players }, (_, seat) => seatRow(game, seat, form));
    clear(
      box,
      h("h2", {}, t("lobby.create")),
      h(
        "form",
        { onsubmit: (event) => submit(event, button) },
        gamePicker(),
        basics(game),
        h("fieldset.seats", {}, h("legend", {}, t("lobby.seats")), h("ul.seat-list", {}, seats)),
        moreOptions(game),
        button,
      ),
    );
  }

  // The room's rules and settings, folded so Create stays on the first screen; the fold is
  // kept open across redraws once opened.
  function moreOptions(game) {
    return h(
      "details.more-options",
      { id: "more-options", open: form.more, ontoggle: (e) => (form.more = e.target.open) },
      h("summary", {}, t("lobby.more_options")),
      game.options.length
        ? h("fieldset.options", {}, h("legend", {}, t("lobby.options")), game.options.map((o) => optionRow(game, o, form)))
        : null,
      h(
        "div.field.checks",
        {},
        checkbox("create-public", form.public, (v) => (form.public = v), t("lobby.public")),
        h("p.option-help", {}, t("lobby.public_help")),
        checkbox("create-spectators", form.spectators, (v) => (form.spectators = v), t("lobby.spectators")),
        checkbox("create-hints", form.hints, (v) => (form.hints = v), t("lobby.hints")),
        h("p.option-help", {}, t("lobby.hints_help")),
        checkbox("create-rated", form.rated, (v) => (form.rated = v), t("lobby.rated")),
        h("p.option-help", {}, t("lobby.rated_help")),
        checkbox("create-chat", form.chat, (v) => (form.chat = v), t("lobby.chat")),
      ),
    );
  }

  return {
    setGames(list) {
      games = list;
      if (games.length) pickGame(games[0].name);
    },
    redraw: draw,
  };
}
