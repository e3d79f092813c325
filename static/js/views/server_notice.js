// The server operator's word to every open table: a notice ("restarting in 5 minutes"), or
// why the room was closed. One banner at the top of the room; a later notice replaces it. The
// operator's text is shown as isolated text only (a <bdi>), never as markup.

import { t } from "../i18n.js";
import { h } from "./dom.js";

export function createServerNotice(container) {
  let banner = null;

  function show({ text, closed = false }) {
    banner?.remove();
    const words = h("bdi.server-notice-text");
    words.textContent = text;
    const dismiss = h(
      "button.server-notice-close",
      { type: "button", "aria-label": t("notice.dismiss"), onclick: () => hide() },
      "×",
    );
    banner = h(
      "div.server-notice",
      { role: closed ? "alert" : "status", dataset: { closed: closed ? "yes" : "no" } },
      h("strong.server-notice-label", {}, t(closed ? "notice.room_closed" : "notice.from_server")),
      " ",
      words,
      dismiss,
    );
    container.prepend(banner);
  }

  function hide() {
    banner?.remove();
    banner = null;
  }

  return { show, hide };
}
