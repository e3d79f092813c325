// The router: picks the page for the address and redraws it when the language changes.
//   /            the lobby
//   /r/{room_id} a room (join, play, watch)
//   /history     finished matches and replays (/history/{match_id} for one)
//   /rules       the rules of both games
//   /p/{id}      a player's profile (/me for one's own)
//   /leaderboards the ratings of one game and mode

import { onLanguageChange } from "./i18n.js";
import { onPreferenceChange } from "./preferences.js";
import { historyPage } from "./views/history.js";
import { leaderboardPage } from "./views/leaderboard.js";
import { lobbyPage } from "./views/lobby.js";
import { notFoundPage } from "./views/not_found.js";
import { myProfilePage, profilePage } from "./views/profile.js";
import { roomPage } from "./views/room.js";
import { rulesPage } from "./views/rules.js";
import { applyPreferences, drawShell } from "./views/shell.js";

const ROUTES = [
  [/^\/$/, lobbyPage, "lobby"],
  [/^\/r\/([A-Za-z0-9_-]+)\/?$/, roomPage, "room"],
  [/^\/history\/?$/, historyPage, "history"],
  [/^\/history\/([A-Za-z0-9_-]+)\/?$/, historyPage, "history"],
  [/^\/rules\/?$/, rulesPage, "rules"],
  [/^\/p\/([A-Za-z0-9_-]+)\/?$/, profilePage, "profile"],
  [/^\/me\/?$/, myProfilePage, "profile"],
  [/^\/leaderboards\/?$/, leaderboardPage, "leaderboards"],
];

let page = null;
let section = "lobby";

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

function route() {
  page?.dispose?.();
  page = null;
  const main = document.getElementById("view");
  const path = location.pathname;
  for (const [pattern, mount, name] of ROUTES) {
    const match = pattern.exec(path);
    if (match) {
      section = name;
      drawShell(section);
      page = mount(main, match.slice(1), { navigate });
      main.focus({ preventScroll: true });
      return;
    }
  }
  section = "";
  drawShell(section);
  page = notFoundPage(main);
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-link]");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});

window.addEventListener("popstate", route);
onLanguageChange(() => {
  drawShell(section);
  page?.redraw?.();
});
onPreferenceChange(() => {
  applyPreferences();
  page?.redraw?.();
});
route();
