// The app's not-found page: an unknown address, or an invite link to a room that is not there.

import { t } from "../i18n.js";
import { clear, h } from "./dom.js";

// kind: "page" (no such address) or "room" (no such room, or it has closed).
export function showNotFound(main, kind = "page") {
  clear(
    main,
    h(
      "section.panel.not-found",
      { id: "not-found", dataset: { kind } },
      h("h1", {}, t(kind === "room" ? "notfound.room_title" : "notfound.title")),
      h("p", {}, t(kind === "room" ? "notfound.room_text" : "notfound.text")),
      h("p", {}, h("a.button.primary", { href: "/", "data-link": true }, t("notfound.to_lobby"))),
    ),
  );
}

export function notFoundPage(main) {
  const draw = () => showNotFound(main, "page");
  draw();
  return { redraw: draw, dispose() {} };
}
