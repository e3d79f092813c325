// The header on every page: the name, the navigation, the connection light, the table
// settings and the language switch.

import { LANGUAGES, language, setLanguage, t } from "../i18n.js";
import { preference, reducedMotion, setPreference } from "../preferences.js";
import { h } from "./dom.js";

let connection = null;

// The preferences as classes on <html>, which the style sheets follow.
export function applyPreferences() {
  const root = document.documentElement;
  root.classList.toggle("colour-aid", Boolean(preference("colourBlind")));
  root.classList.toggle("motion-off", reducedMotion());
}

function settingsMenu() {
  const toggle = (id, key, checked, onchange) =>
    h(
      "label.pref",
      {},
      h("input", { type: "checkbox", id, checked, onchange: (event) => onchange(event.target.checked) }),
      t(key),
    );
  return h(
    "details.prefs",
    { id: "prefs" },
    h("summary", { "aria-label": t("prefs.title"), title: t("prefs.title") }, h("span", { "aria-hidden": "true" }, "⚙")),
    h(
      "div.prefs-panel",
      {},
      toggle("pref-sound", "prefs.sound", preference("sound"), (on) => setPreference("sound", on)),
      toggle("pref-motion", "prefs.reduce_motion", reducedMotion(), (on) => setPreference("reduceMotion", on)),
      toggle("pref-colour", "prefs.colour_blind", preference("colourBlind"), (on) => setPreference("colourBlind", on)),
    ),
  );
}

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
  const wasOpen = document.getElementById("prefs")?.open ?? false;
  const menu = settingsMenu();
  menu.open = wasOpen;
  top.replaceChildren(
    h("a.brand", { href: "/", "data-link": true }, h("span.brand-mark", {}, "♠"), t("app.name")),
    h(
      "nav",
      { "aria-label": t("shell.nav") },
      link("/", "nav.lobby", "lobby"),
      link("/history", "nav.history", "history"),
      link("/leaderboards", "nav.leaderboards", "leaderboards"),
      link("/rules", "nav.rules", "rules"),
      link("/me", "nav.me", "profile"),
    ),
    h("span.spacer"),
    h("span.conn", { id: "conn", role: "status", hidden: section !== "room" }),
    menu,
    picker,
  );
  applyPreferences();
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
