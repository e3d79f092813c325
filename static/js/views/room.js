// A room: the join form, the players and their controls, the invite link, and the table of the
// room's game, all redrawn from the store; the tab's title and the screen reader follow the
// turn, and an invite link to a room that is not there says so.

import { api } from "../api.js";
import { gameName, optionLabel, optionValueText } from "../game_text.js";
import { t } from "../i18n.js";
import { RoomController } from "../room_controller.js";
import { session } from "../session.js";
import { createChatPanel } from "./chat_panel.js";
import { clear, h, keepFocus } from "./dom.js";
import { createGinTable } from "./gin_table.js";
import { aloneWithBots, secondsUntil } from "./hand_end.js";
import { showNotFound } from "./not_found.js";
import { asPlayer } from "./identity_dialog.js";
import { createJoinNotice } from "./join_notice.js";
import { createServerNotice } from "./server_notice.js";
import { createTurnWatch } from "./notify.js";
import { createRummikubTable } from "./rummikub_table.js";
import { seatName, seatsPanel } from "./seats_panel.js";
import { setConnectionStatus } from "./shell.js";
import { showError, toast } from "./toasts.js";

const TABLES = { gin_rummy: createGinTable, rummikub: createRummikubTable };
const NOT_FOUND = new Set(["room_not_found", "no_such_room", "http_404"]);

export function roomPage(main, [roomId]) {
  let table = null;
  let tableGame = null;
  let preview = null;
  let failed = null;
  let missing = false;
  let readySent = false;
  // Set when the automatic "ready" failed: the button is offered after all.
  let offerReady = false;
  const turnWatch = createTurnWatch();
  const controller = new RoomController(roomId, {
    onStatus: (status, detail) => {
      setConnectionStatus(status);
      if (status === "failed") connectionFailed(detail);
    },
    onError: showError,
    onChat: (lines, history) => chat?.arrived(lines, history, redrawSeats),
    onNotice: (notice) => serverNotice?.show(notice),
  });
  let chat = null;
  let serverNotice = null;

  const header = h("section.room-head");
  const seatsBox = h("section.seats-panel");
  const tableBox = h("section.table-area");
  const joinBox = h("section.panel.join");
  const roomBox = h("div.room", { dataset: { room: roomId } }, header, seatsBox, tableBox, joinBox);
  main.replaceChildren(roomBox);
  chat = createChatPanel(roomBox, controller, seatsBox);
  serverNotice = createServerNotice(roomBox);

  // Test and support hook: drop the socket as a network failure would.
  window.meldhall = { dropConnection: () => controller.dropConnection(), store: controller.store };

  const joinNotice = createJoinNotice();
  const unsubscribe = controller.store.subscribe(() => draw());

  function notFound() {
    missing = true;
    controller.dispose();
    setConnectionStatus(null);
    showNotFound(main, "room");
  }

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
    if (code === 4404) return notFound();
    if (code === 4403) showError({ code: "origin_not_allowed" });
    draw();
  }

  async function loadPreview() {
    try {
      preview = await api.room(roomId);
    } catch (error) {
      preview = null;
      if (NOT_FOUND.has(error?.code)) return notFound();
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
      const seat = Number(seatSelect.value);
      try {
        await asPlayer(name, (key) => controller.join(name, seat, key));
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

  function drawHeader(room) {
    const link = `${location.origin}${room.invite_path ?? `/r/${room.room_id}`}`;
    const linkInput = h("input.invite-link", { type: "text", readonly: true, value: link, "aria-label": t("room.invite") });
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        toast(t("room.link_copied"));
      } catch {
        linkInput.closest(".invite")?.classList.remove("compact");
        linkInput.select();
        toast(t("room.copy_by_hand"));
      }
    };
    const deadline = controller.state?.deadline;
    // While seats fill the link is the point of the page; during play it shrinks to a button.
    const waiting = room.status === "waiting";
    clear(
      header,
      h("h1", {}, gameName(room.game), h("span.room-status", { dataset: { status: room.status } }, t(`status.${room.status}`))),
      h(
        "div.invite",
        { class: waiting ? "" : "compact" },
        h("span.label", {}, t("room.invite")),
        linkInput,
        h("button", { type: "button", id: "copy-link", onclick: copy }, t("room.copy_link")),
      ),
      deadline ? h("span.deadline", { id: "deadline", dataset: { deadline } }, t("room.timer", { seconds: secondsUntil(deadline) })) : null,
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

  async function leave() {
    await run(controller.leave());
    setConnectionStatus(null);
    loadPreview();
  }

  function drawSeats(room, turn) {
    joinNotice(room, you());
    clear(
      seatsBox,
      seatsPanel({ room, you: you(), turn, table, controller, run, onLeave: leave, offerReady }),
    );
    chat?.decorateSeats(seatsBox);
  }

  function redrawSeats() {
    const state = controller.state;
    if (missing || !state) return;
    keepFocus(seatsBox, () => drawSeats(state.room, table?.turnSeats?.(state) ?? []));
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

  // A player alone with bots has nobody to wait for: their seat is ready as soon as it is full.
  function readyIfAloneWithBots(room) {
    const me = room.seats.find((s) => s.seat === you());
    if (room.status !== "waiting") readySent = false;
    if (readySent || room.status !== "waiting" || !me || me.ready) return;
    if (room.seats.some((s) => s.kind === "empty") || !aloneWithBots(room, me.seat)) return;
    readySent = true;
    controller.ready().catch((error) => {
      offerReady = true;
      showError(error);
      draw();
    });
  }

  function draw() {
    if (missing) return;
    const state = controller.state;
    chat?.update(state);
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
    turnWatch.update({ myTurn: (state.you?.legal?.length ?? 0) > 0, text: table?.turnText?.() ?? null });
    readyIfAloneWithBots(state.room);
  }

  const watching = new URLSearchParams(location.search).get("watch") === "1";
  if (controller.hasSeat()) controller.connect();
  else if (watching) controller.watch();
  else loadPreview();
  draw();

  // Every second: the countdowns (turn, next hand, offline) count down; one that reaches zero
  // may change what is offered (a bot for an absent player), so the room is redrawn then.
  const tick = setInterval(() => {
    if (missing || !controller.state) return;
    let crossed = false;
    for (const label of main.querySelectorAll("[data-deadline]")) {
      label.textContent = t("room.timer", { seconds: secondsUntil(Number(label.dataset.deadline)) });
    }
    for (const label of main.querySelectorAll("[data-countdown]")) {
      const seconds = secondsUntil(Number(label.dataset.countdown));
      label.textContent = t(label.dataset.countdownKey, { seconds, name: label.dataset.countdownName ?? "" });
      // The next hand's countdown ends with the server's deal, which redraws by itself.
      if (seconds === 0 && !label.dataset.countdownKey.startsWith("result.")) crossed = true;
    }
    if (crossed) draw();
  }, 1000);

  return {
    redraw() {
      if (missing) {
        showNotFound(main, "room");
        return;
      }
      draw();
      chat?.redraw();
      table?.redraw();
    },
    dispose() {
      clearInterval(tick);
      unsubscribe();
      turnWatch.dispose();
      table?.dispose();
      chat?.dispose();
      controller.dispose();
      setConnectionStatus(null);
      delete window.meldhall;
    },
  };
}
