// The table's chat: a button with the unread count (in the page's flow, so that it never covers
// a card or the rack) that unfolds a panel (a sheet at the bottom of a phone), the lines, the quick reactions one tap away, a message box, and each seat's
// mutes; a reaction or line also shows as a bubble at the sender's seat for a moment.
// Whatever people typed is put on the page as text only (textContent, never markup), each
// name and message in its own <bdi> so that no direction mark in it reaches the text around.

import { MAX_CHARS, REACTIONS } from "../chat_log.js";
import { t } from "../i18n.js";
import { h } from "./dom.js";
import { chatWhileHidden } from "./notify.js";
import { seatName } from "./seats_panel.js";

const BUBBLE_MS = 4000;

function lineWords(line) {
  return line.reaction ? t(`chat.reaction.${line.reaction}`) : (line.text ?? "");
}

function timeText(at) {
  const when = new Date(at);
  return Number.isNaN(when.getTime()) ? "" : when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

export function createChatPanel(root, controller, before = null) {
  const log = controller.chatLog;
  let open = false;
  let room = null;
  let mySeat = null;
  const bubbles = new Map();
  // What the lines were last drawn from: a patch of the game does not redraw them.
  let drawn = null;
  const timers = new Set();

  const badge = h("span.chat-unread", { "aria-hidden": "true" });
  const toggle = h("button.chat-toggle", { type: "button", id: "chat-toggle", "aria-expanded": "false", "aria-controls": "chat-panel", onclick: () => setOpen(!open) });
  const list = h("ol.chat-lines", { id: "chat-lines", "aria-live": "polite" });
  const input = h("textarea.chat-input", { id: "chat-input", rows: 1, maxlength: MAX_CHARS, "aria-label": t("chat.label") });
  const form = h("form.chat-form", { onsubmit: send }, input, h("button.primary", { type: "submit", id: "chat-send" }));
  const reactions = h("div.chat-reactions", { role: "group" });
  const seats = h("details.chat-seats");
  const note = h("p.chat-note.muted");
  const title = h("h2.chat-title");
  const close = h("button.quiet.chat-close", { type: "button", onclick: () => setOpen(false) }, "×");
  const panel = h("section.chat-panel", { id: "chat-panel", hidden: true }, h("div.chat-head", {}, title, close), list, seats, note, reactions, form);
  const dock = h("div.chat-dock", {}, panel, toggle);
  root.insertBefore(dock, before);

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) send(event);
  });

  function send(event) {
    event.preventDefault();
    const text = input.value;
    if (!text.trim()) return;
    if (controller.say(text) !== false) input.value = "";
  }

  function setOpen(wanted) {
    open = wanted;
    drawn = null;
    if (open) log.markRead();
    draw();
    if (open) {
      list.scrollTop = list.scrollHeight;
      input.focus({ preventScroll: true });
    }
  }

  function canPost() {
    return Boolean(room?.chat) && mySeat !== null && !(room?.chat_muted ?? []).includes(mySeat);
  }

  function drawLines() {
    const lines = log.visible();
    if (!lines.length) {
      list.replaceChildren(h("li.chat-empty.muted", {}, t("chat.empty")));
      return;
    }
    list.replaceChildren(
      ...lines.map((line) => {
        const name = h("bdi.chat-name");
        name.textContent = line.from?.name ?? "";
        const words = h("bdi.chat-text", { class: line.reaction ? "reaction" : "" });
        words.textContent = lineWords(line);
        return h(
          "li.chat-line",
          { dataset: { id: line.id, seat: line.from?.seat }, class: line.from?.seat === mySeat ? "mine" : "" },
          h("span.chat-time.muted", {}, timeText(line.at)),
          " ",
          name,
          ": ",
          words,
        );
      }),
    );
  }

  function drawSeats() {
    const others = (room?.seats ?? []).filter((s) => s.kind === "human" && s.seat !== mySeat);
    const host = room?.chat_host === mySeat && mySeat !== null;
    const muted = new Set(room?.chat_muted ?? []);
    seats.hidden = !others.length;
    seats.replaceChildren(
      h("summary", {}, t("chat.seats")),
      h(
        "ul",
        {},
        others.map((s) => {
          const name = h("bdi.chat-name");
          name.textContent = seatName(s);
          const mine = log.isMuted(s.seat);
          return h(
            "li.chat-seat",
            { dataset: { seat: s.seat } },
            name,
            room?.chat_host === s.seat ? h("span.badge", {}, t("chat.host")) : null,
            muted.has(s.seat) ? h("span.muted", {}, ` (${t("chat.muted_by_host")})`) : null,
            h(
              "button.quiet.mute-me",
              { type: "button", "aria-pressed": String(mine), onclick: () => { log.setMuted(s.seat, !mine); draw(); } },
              t(mine ? "chat.unmute_me" : "chat.mute_me"),
            ),
            host
              ? h(
                  "button.quiet.mute-all",
                  { type: "button", "aria-pressed": String(muted.has(s.seat)), onclick: () => controller.muteForEveryone(s.seat, !muted.has(s.seat)) },
                  t(muted.has(s.seat) ? "chat.unmute_all" : "chat.mute_all"),
                )
              : null,
          );
        }),
      ),
    );
  }

  function draw() {
    dock.hidden = !room;
    const unread = open ? 0 : log.unread;
    toggle.replaceChildren(t("chat.open"), unread ? badge : "");
    badge.textContent = String(unread);
    toggle.setAttribute("aria-label", unread ? t("chat.open_unread", { n: unread }) : t("chat.open"));
    toggle.setAttribute("aria-expanded", String(open));
    dock.classList.toggle("open", open);
    panel.hidden = !open;
    if (!open) return;
    title.textContent = t("chat.title");
    close.setAttribute("aria-label", t("chat.close"));
    reactions.setAttribute("aria-label", t("chat.reactions"));
    input.placeholder = t("chat.placeholder");
    input.setAttribute("aria-label", t("chat.label"));
    form.querySelector("#chat-send").textContent = t("chat.send");
    const key = `${log.revision}:${mySeat}:${document.documentElement.lang}`;
    if (key !== drawn) {
      drawn = key;
      const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
      drawLines();
      if (stick) list.scrollTop = list.scrollHeight;
    }
    drawSeats();
    const posting = canPost();
    const why = !room?.chat ? "chat.off" : mySeat === null ? "chat.spectator_note" : posting ? null : "chat.muted_you";
    note.hidden = !why;
    note.textContent = why ? t(why) : "";
    form.hidden = !posting;
    reactions.hidden = !posting;
    reactions.replaceChildren(
      ...REACTIONS.map((id) =>
        h("button.chat-reaction", { type: "button", dataset: { reaction: id }, onclick: () => controller.react(id) }, t(`chat.reaction.${id}`)),
      ),
    );
  }

  // After each redraw of the seats: the bubbles of lines said in the last moments.
  function decorateSeats(box) {
    for (const [seat, words] of bubbles) {
      const place = box.querySelector(`[data-seat="${CSS.escape(String(seat))}"]`);
      if (!place) continue;
      const bubble = h("bdi.chat-bubble", { role: "status" });
      bubble.textContent = words;
      place.append(bubble);
    }
  }

  return {
    update(state) {
      room = state?.room ?? null;
      mySeat = state?.you?.seat ?? null;
      draw();
    },
    // Lines the socket brought (a history on connecting, or one new line).
    arrived(lines, history, redrawSeats) {
      if (open) log.markRead();
      if (!history) {
        for (const line of lines) {
          const seat = line.from?.seat;
          bubbles.set(seat, lineWords(line));
          const timer = setTimeout(() => {
            timers.delete(timer);
            if (bubbles.get(seat) === lineWords(line)) bubbles.delete(seat);
            redrawSeats();
          }, BUBBLE_MS);
          timers.add(timer);
          if (seat !== mySeat) chatWhileHidden();
        }
        if (lines.length) redrawSeats();
      }
      draw();
    },
    decorateSeats,
    redraw: draw,
    dispose() {
      for (const timer of timers) clearTimeout(timer);
      dock.remove();
    },
  };
}
