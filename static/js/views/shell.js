// The header on every page: the name, the navigation, the connection light, the language switch.

import { LANGUAGES, language, setLanguage, t } from "../i18n.js";
import { h } from "./dom.js";

let connection = null;

export function drawShell(section) {
  const top = document.getElementById("top");
  const link = (href, key, name) =>
    h("a", { href, "data-link": true, "aria-current": section === name ? "page" : null }, t(key));
  const picker = h(
    "select",
    {
      id: "lang",
      "aria-label": t("shell.language"),
      onchange: (event) => setLanguage(event.target.value),
    },
    Object.keys(LANGUAGES).map((code) =>
      h("option", { value: code, selected: code === language() }, LANGUAGES[code]["lang.name"]),
    ),
  );
  top.replaceChildren(
    h("a.brand", { href: "/", "data-link": true }, h("span.brand-mark", {}, "♠"), t("app.name")),
    h(
      "nav",
      { "aria-label": t("shell.nav") },
      link("/", "nav.lobby", "lobby"),
      link("/history", "nav.history", "history"),
      link("/rules", "nav.rules", "rules"),
    ),
    h("span.spacer"),
    h("span.conn", { id: "conn", role: "status", hidden: section !== "room" }),
    picker,
  );
  document.title = t("app.name");
  if (section === "room") setConnectionStatus(connection);
  else connection = null;
}

// status: connecting | open | reconnecting | failed | closed | null
export function setConnectionStatus(status) {
  connection = status;
  const light = document.getElementById("conn");
  if (!light) return;
  light.hidden = status === null;
  light.dataset.status = status ?? "";
  light.replaceChildren(h("span.conn-dot"), h("span.conn-text", {}, t(`conn.${status ?? "closed"}`)));
}
