// A player's profile: the name (renamed here by the player themself), each mode's rating with
// its chart, the recent matches and the head to head; on one's own profile also the devices
// (a link code, a code from another device, signing the others out) and forgetting oneself.
// /me opens one's own profile, asking for a name first if this browser has no player.

import { api } from "../api.js";
import { gameName } from "../game_text.js";
import { me, onIdentityChange, renamePlayer, withKey } from "../identity.js";
import { errorText, language, t } from "../i18n.js";
import { modeName, placeText, signed } from "../rating_text.js";
import { clear, h } from "./dom.js";
import { GUEST, ensurePlayer } from "./identity_dialog.js";
import { nameElement } from "./names.js";
import { ownDevices } from "./profile_devices.js";
import { ratingChartElement } from "./rating_chart.js";
import { showError } from "./toasts.js";

const NOT_FOUND = new Set(["player_not_found", "http_404", "http_422"]);
// The profile holds the opponents met most often, this many; the rest come a page at a time.
const OPPONENTS_PAGE = 50;

function when(iso) {
  if (!iso) return "";
  return new Date(iso).toLocaleString(language(), { dateStyle: "medium", timeStyle: "short" });
}

export function myProfilePage(main, _params, { navigate }) {
  let disposed = false;
  const draw = () => clear(main, h("section.panel.profile", {}, h("p.muted", {}, t("common.loading"))));
  draw();
  ensurePlayer().then((player) => {
    if (disposed) return;
    if (player && player !== GUEST) navigate(`/p/${player.id}`, { replace: true });
    else navigate("/", { replace: true });
  });
  return {
    redraw: draw,
    dispose() {
      disposed = true;
    },
  };
}

export function profilePage(main, [playerId], { navigate }) {
  let profile = null;
  // How many opponents there are, once a further page has said; null before.
  let opponents = null;
  let fetching = false;
  let missing = false;
  let disposed = false;
  const own = () => me()?.id === playerId;
  const box = h("div.profile");
  main.replaceChildren(box);

  async function load() {
    try {
      profile = await withKey((key) => api.profile(playerId, own() ? key : null));
      opponents = null;
    } catch (error) {
      // The key was refused and forgotten: the change of identity reads the profile again.
      if (error?.code === "bad_player_key") return;
      if (NOT_FOUND.has(error?.code)) missing = true;
      else showError(error);
    }
    if (!disposed) draw();
  }

  function renameForm() {
    const input = h("input", { id: "rename-name", type: "text", maxlength: 32, value: profile.player.name, autocomplete: "nickname" });
    const error = h("p.form-error", { id: "rename-error", role: "alert", hidden: true });
    const submit = async (event) => {
      event.preventDefault();
      try {
        await renamePlayer(input.value.trim());
      } catch (problem) {
        error.textContent = errorText(problem?.code ?? "error", problem?.message ?? "");
        error.hidden = false;
      }
    };
    return h(
      "details.rename",
      {},
      h("summary", {}, t("profile.rename")),
      h(
        "form.inline",
        { onsubmit: submit },
        h("label.sr-only", { for: "rename-name" }, t("lobby.your_name")),
        input,
        h("button", { type: "submit", id: "rename-button" }, t("profile.rename_button")),
      ),
      error,
    );
  }

  function ratingSection(rating) {
    const chartBox = h("div.chart-box");
    const section = h(
      "section.panel.mode-rating",
      { dataset: { mode: rating.mode } },
      h("h2", {}, modeName(rating.mode)),
      h(
        "p.rating-line",
        {},
        h("span.rating-big", {}, String(rating.rating)),
        rating.provisional ? h("span.badge.provisional", { title: t("rating.provisional_help") }, t("rating.provisional")) : null,
        h("span.muted", {}, t("profile.matches_n", { n: rating.matches })),
      ),
      chartBox,
    );
    // Drawn once the section is in the page, at the width it has there.
    requestAnimationFrame(() => {
      if (!rating.history.length || !chartBox.isConnected) return;
      chartBox.append(
        ratingChartElement(rating.history, {
          width: chartBox.clientWidth || 600,
          label: t("profile.chart_label", { mode: modeName(rating.mode) }),
        }),
      );
    });
    return section;
  }

  function recentTable() {
    const rows = profile.recent_matches;
    if (!rows.length) return h("p.muted", {}, t("profile.no_matches"));
    return h(
      "div.table-scroll",
      {},
      h(
        "table.profile-matches",
        { id: "recent-matches" },
        h(
          "thead",
          {},
          h("tr", {}, h("th", {}, t("lobby.game")), h("th", {}, t("profile.place")), h("th", {}, t("profile.change")), h("th", {}, t("profile.opponents")), h("th.when", {}, t("history.when"))),
        ),
        h(
          "tbody",
          {},
          rows.map((m) => {
            const change = m.rating_before === null || m.rating_after === null ? null : m.rating_after - m.rating_before;
            return h(
              "tr",
              { dataset: { match: m.match_id } },
              h("td", {}, h("a", { href: `/history/${m.match_id}`, "data-link": true }, gameName(m.game)), " ", h("span.muted.players-count", {}, t("rating.players_n", { n: m.players }))),
              h("td.nowrap", {}, placeText(m.place)),
              h("td.nowrap", {}, change === null ? "–" : h(`span.delta.${change > 0 ? "up" : change < 0 ? "down" : "same"}`, {}, signed(change))),
              h("td.names", {}, m.opponents.map((name, i) => [i ? t("list.sep") : "", nameElement(name)])),
              h("td.when", {}, when(m.finished_at)),
            );
          }),
        ),
      ),
    );
  }

  async function moreOpponents() {
    if (fetching) return;
    fetching = true;
    const rows = profile.head_to_head;
    try {
      const page = await withKey((key) => api.headToHead(playerId, { offset: rows.length, limit: OPPONENTS_PAGE, key: own() ? key : null }));
      const known = new Set(rows.map((row) => row.player_id));
      rows.push(...page.items.filter((row) => !known.has(row.player_id)));
      opponents = page.total;
    } catch (error) {
      if (error?.code !== "bad_player_key") showError(error);
    } finally {
      fetching = false;
    }
    if (!disposed) draw();
  }

  function headToHead() {
    const rows = profile.head_to_head;
    if (!rows.length) return h("p.muted", {}, t("profile.no_opponents"));
    const more = rows.length >= OPPONENTS_PAGE && (opponents === null || rows.length < opponents);
    return [headToHeadTable(rows), more ? h("button", { type: "button", id: "more-opponents", onclick: moreOpponents }, t("profile.more_opponents")) : null];
  }

  function headToHeadTable(rows) {
    return h(
      "table.head-to-head",
      { id: "head-to-head" },
      h("thead", {}, h("tr", {}, h("th", {}, t("profile.opponent")), h("th", {}, t("profile.matches")), h("th", {}, t("profile.wins")), h("th", {}, t("profile.losses")))),
      h(
        "tbody",
        {},
        rows.map((row) =>
          h(
            "tr",
            {},
            h("td.names", {}, h("a", { href: `/p/${row.player_id}`, "data-link": true }, nameElement(row.name))),
            h("td", {}, String(row.matches)),
            h("td", {}, String(row.wins)),
            h("td", {}, String(row.losses)),
          ),
        ),
      ),
    );
  }

  function draw() {
    if (missing) {
      clear(box, h("section.panel.not-found", { id: "not-found", dataset: { kind: "player" } }, h("h1", {}, t("profile.not_found")), h("p", {}, h("a.button.primary", { href: "/leaderboards", "data-link": true }, t("nav.leaderboards")))));
      return;
    }
    if (!profile) {
      clear(box, h("section.panel", {}, h("p.muted", {}, t("common.loading"))));
      return;
    }
    const player = profile.player;
    document.title = `${player.name} · ${t("app.name")}`;
    clear(
      box,
      h(
        "section.panel.profile-head",
        {},
        h("h1", { id: "profile-name" }, nameElement(player.name), player.kind === "bot" ? h("span.badge.bot", {}, t("room.bot")) : null, own() ? h("span.badge", {}, t("room.you")) : null),
        h("p.muted", {}, t("profile.since", { date: new Date(player.created_at).toLocaleDateString(language(), { dateStyle: "medium" }) })),
        own() ? renameForm() : null,
      ),
      profile.ratings.length
        ? h("div.mode-ratings", {}, profile.ratings.map(ratingSection))
        : h("section.panel", {}, h("p.muted", { id: "no-ratings" }, t("profile.no_ratings"))),
      h("section.panel", {}, h("h2", {}, t("profile.recent")), recentTable()),
      h("section.panel", {}, h("h2", {}, t("profile.head_to_head")), headToHead()),
      own() ? ownDevices({ navigate }) : null,
    );
  }

  // Another tab or this page linked, signed out or forgot the player: read the profile again.
  const unsubscribe = onIdentityChange(() => {
    if (!disposed) load();
  });
  draw();
  load();
  return {
    redraw: draw,
    dispose() {
      disposed = true;
      unsubscribe();
    },
  };
}
