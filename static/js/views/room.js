// A room: the join form, the seats and their controls, the invite link, and the table of the
// room's game, all redrawn from the store.

import { api } from "../api.js";
import { gameName, optionLabel, optionValueText, seatLabel } from "../game_text.js";
import { t } from "../i18n.js";
import { RoomController } from "../room_controller.js";
import { session } from "../session.js";
import { clear, h, keepFocus } from "./dom.js";
import { createGinTable } from "./gin_table.js";
import { createRummikubTable } from "./rummikub_table.js";
import { setConnectionStatus } from "./shell.js";
import { showError, toast } from "./toasts.js";

const TABLES = { gin_rummy: createGinTable, rummikub: createRummikubTable };
const BOT_LEVELS = ["easy", "normal", "hard"];

export function roomPage(main, [roomId]) {
  let table = null;
  let tableGame = null;
  let preview = null;
  let tick = null;
  let failed = null;
  const controller = new RoomController(roomId, {
    onStatus: (status, detail) => {
      setConnectionStatus(status);
      if (status === "failed") connectionFailed(detail);
    },
    onError: showError,
  });

  const header = h("section.room-head");
  const seatsBox = h("section.seats-panel");
  const tableBox = h("section.table-area");
  const joinBox = h("section.panel.join");
  main.replaceChildren(h("div.room", { dataset: { room: roomId } }, header, seatsBox, tableBox, joinBox));

  // Test and support hook: drop the socket as a network failure would.
  window.meldhall = { dropConnection: () => controller.dropConnection(), store: controller.store };

  const unsubscribe = controller.store.subscribe(() => draw());

  function connectionFailed(code) {
    failed = code;
    if (code === 4401 && controller.hasSeat()) {
      controller.forgetSeat();
      showError({ code: "bad_token" });
      controller.dispose();
      setConnectionStatus(null);
      failed = null;
      loadPreview();
      return;
    }
    if (code === 4404) showError({ code: "room_not_found" });
    if (code === 4403) showError({ code: "origin_not_allowed" });
    draw();
  }

  async function loadPreview() {
    try {
      preview = await api.room(roomId);
    } catch (error) {
      preview = null;
      showError(error);
    }
    draw();
  }

  function you() {
    return controller.state?.you?.seat ?? null;
  }

  async function run(promise, success) {
    try {
      await promise;
      if (success) toast(success);
    } catch (error) {
      showError(error);
    }
  }

  function drawJoin() {
    const room = preview;
    if (!room) {
      clear(joinBox, h("p.muted", {}, t("common.loading")));
      return;
    }
    const empty = (room.seats ?? []).filter((s) => s.kind === "empty");
    const nameInput = h("input", {
      id: "join-name",
      type: "text",
      maxlength: 32,
      required: true,
      autocomplete: "nickname",
      value: session.name(),
      placeholder: t("lobby.name_placeholder"),
    });
    const seatSelect = h(
      "select",
      { id: "join-seat" },
      empty.map((s) => h("option", { value: s.seat }, t("room.seat_n", { n: s.seat + 1 }))),
    );
    const submit = async (event) => {
      event.preventDefault();
      const name = nameInput.value.trim();
      if (!name) {
        showError({ code: "name_required" });
        nameInput.focus();
        return;
      }
      try {
        await controller.join(name, Number(seatSelect.value));
        draw();
      } catch (error) {
        showError(error);
        loadPreview();
      }
    };
    clear(
      joinBox,
      h("h2", {}, t("room.join_title", { game: gameName(room.game) })),
      h("p.muted", {}, t("room.join_help")),
      h(
        "ul.seat-preview",
        {},
        (room.seats ?? []).map((s) =>
          h("li", {}, t("room.seat_n", { n: s.seat + 1 }), ": ", s.kind === "empty" ? t("room.empty_seat") : seatName(s)),
        ),
      ),
      empty.length
        ? h(
            "form.join-form",
            { onsubmit: submit },
            h("div.field", {}, h("label", { for: "join-name" }, t("lobby.your_name")), nameInput),
            h("div.field", {}, h("label", { for: "join-seat" }, t("room.join_seat")), seatSelect),
            h("button.primary", { type: "submit", id: "join-button" }, t("room.join_button")),
          )
        : h("p", {}, t("room.full")),
      room.spectators === false
        ? null
        : h(
            "button.quiet",
            {
              type: "button",
              id: "watch-button",
              onclick: () => {
                controller.watch();
                draw();
              },
            },
            t("room.watch"),
          ),
    );
  }

  function seatName(seat) {
    return seat.kind === "empty" ? t("room.empty_seat") : seatLabel(seat, seat.seat);
  }

  function drawHeader(room) {
    const link = `${location.origin}${room.invite_path ?? `/r/${room.room_id}`}`;
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        toast(t("room.link_copied"));
      } catch {
        linkInput.select();
        toast(t("room.copy_by_hand"));
      }
    };
    const linkInput = h("input.invite-link", { type: "text", readonly: true, value: link, "aria-label": t("room.invite") });
    const deadline = controller.state?.deadline;
    clear(
      header,
      h("h1", {}, gameName(room.game), h("span.room-status", { dataset: { status: room.status } }, t(`status.${room.status}`))),
      h("div.invite", {}, h("span.label", {}, t("room.invite")), linkInput, h("button", { type: "button", id: "copy-link", onclick: copy }, t("room.copy_link"))),
      deadline ? h("span.deadline", { id: "deadline" }, timerText(deadline)) : null,
      optionsSummary(room),
      you() === null ? h("span.badge.spectator", {}, t("room.spectating")) : null,
    );
  }

  function optionsSummary(room) {
    const entries = Object.entries(room.options ?? {});
    if (!entries.length) return null;
    return h(
      "details.room-rules",
      { open: room.status === "waiting" },
      h("summary", {}, t("room.rules"), " · ", t("lobby.players"), " ", String(room.players)),
      h(
        "ul",
        {},
        entries.map(([name, value]) =>
          h("li", {}, optionLabel(room.game, name), ": ", h("strong", {}, optionValueText(room.game, name, value))),
        ),
      ),
    );
  }

  function timerText(deadline) {
    const seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    return t("room.timer", { seconds });
  }

  function seatControls(room, seat, turn) {
    const mine = seat.seat === you();
    const controls = [];
    if (seat.kind === "empty" && room.status === "waiting") {
      const level = h(
        "select.bot-level",
        { "aria-label": t("room.bot_level") },
        BOT_LEVELS.map((l) => h("option", { value: l, selected: l === "normal" }, t(`bot.${l}`))),
      );
      controls.push(
        level,
        h(
          "button.small",
          { type: "button", class: "add-bot", onclick: () => run(controller.addBot(seat.seat, level.value)) },
          t("room.add_bot"),
        ),
      );
    }
    if (seat.kind === "bot" && room.status === "waiting") {
      controls.push(
        h("button.small.quiet", { type: "button", onclick: () => run(controller.removeBot(seat.seat)) }, t("room.remove_bot")),
      );
    }
    if (seat.kind === "human" && !seat.connected && !mine && you() !== null && room.status !== "waiting") {
      controls.push(
        h("button.small.quiet", { type: "button", onclick: () => run(controller.seatToBot(seat.seat)) }, t("room.seat_to_bot")),
      );
    }
    return h(
      "li.seat",
      {
        dataset: { seat: seat.seat, kind: seat.kind },
        class: [mine ? "mine" : "", turn.includes(seat.seat) ? "turn" : ""].join(" "),
      },
      h("span.conn-dot", { dataset: { on: seat.kind === "empty" ? "none" : String(seat.connected) }, title: t(seat.connected ? "room.online" : "room.offline") }),
      h("span.seat-name", {}, seatName(seat)),
      mine ? h("span.badge", {}, t("room.you")) : null,
      seat.kind === "bot" ? h("span.badge.bot", {}, t("room.bot")) : null,
      room.status === "waiting" && seat.kind !== "empty" && seat.ready ? h("span.badge.ready", {}, t("room.ready_mark")) : null,
      turn.includes(seat.seat) ? h("span.badge.turn", {}, t("room.their_turn")) : null,
      controls,
    );
  }

  function drawSeats(room, turn) {
    const me = (room.seats ?? []).find((s) => s.seat === you());
    const buttons = [];
    if (me && (room.status === "waiting" || room.status === "between_hands") && !me.ready) {
      buttons.push(h("button.primary", { type: "button", id: "ready-button", onclick: () => run(controller.ready()) }, t("room.ready")));
    }
    if (me && room.status === "finished") {
      buttons.push(h("button.primary", { type: "button", id: "rematch-button", onclick: () => run(controller.rematch()) }, t("room.rematch")));
    }
    if (me && (room.status === "waiting" || room.status === "finished")) {
      buttons.push(
        h(
          "button.quiet",
          {
            type: "button",
            id: "leave-button",
            onclick: async () => {
              await run(controller.leave());
              setConnectionStatus(null);
              loadPreview();
            },
          },
          t("room.leave"),
        ),
      );
    }
    let note = null;
    if (room.status === "waiting") {
      const missing = (room.seats ?? []).some((s) => s.kind === "empty");
      note = h("p.muted", {}, t(missing ? "room.waiting_players" : "room.waiting_ready"));
    } else if (room.status === "between_hands") {
      note = h("p.muted", {}, t("room.between_hands"));
    }
    clear(
      seatsBox,
      h("ul.seat-row", {}, (room.seats ?? []).map((seat) => seatControls(room, seat, turn))),
      h("div.room-buttons", {}, note, buttons),
    );
  }

  function drawTable(state) {
    if (!state.game) {
      table?.dispose();
      table = null;
      tableGame = null;
      tableBox.replaceChildren();
      return;
    }
    if (!table || tableGame !== state.room.game) {
      table?.dispose();
      tableGame = state.room.game;
      const create = TABLES[tableGame];
      table = create ? create(tableBox, controller) : null;
    }
    table?.update(state);
  }

  function draw() {
    const state = controller.state;
    if (!state) {
      header.replaceChildren();
      seatsBox.replaceChildren();
      if (!controller.connection) {
        drawJoin();
      } else {
        clear(joinBox, h("p.muted", {}, failed ? t("conn.failed") : t("common.connecting")));
        if (failed) joinBox.append(h("button", { type: "button", onclick: () => controller.connection.retryNow() }, t("conn.retry")));
      }
      return;
    }
    joinBox.replaceChildren();
    keepFocus(header, () => drawHeader(state.room));
    drawTable(state);
    keepFocus(seatsBox, () => drawSeats(state.room, table?.turnSeats?.(state) ?? []));
  }

  const watching = new URLSearchParams(location.search).get("watch") === "1";
  if (controller.hasSeat()) controller.connect();
  else if (watching) controller.watch();
  else loadPreview();
  draw();

  tick = setInterval(() => {
    const deadline = controller.state?.deadline;
    if (!deadline) return;
    for (const label of main.querySelectorAll("#deadline, [data-deadline]")) label.textContent = timerText(deadline);
  }, 1000);

  return {
    redraw() {
      draw();
      table?.redraw();
    },
    dispose() {
      clearInterval(tick);
      unsubscribe();
      table?.dispose();
      controller.dispose();
      setConnectionStatus(null);
      delete window.meldhall;
    },
  };
}
