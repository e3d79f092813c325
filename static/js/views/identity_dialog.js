// The one question a new browser is asked: the name to play under (or a link code from a
// device that already has a player). Asked the first time a page needs a player, never again
// while this browser remembers it.

import { errorText, t } from "../i18n.js";
import { createPlayer, linkDevice, me, renamePlayer, withKey } from "../identity.js";
import { h } from "./dom.js";

let open = null;

// What the dialog answers when the person chooses to play as a guest; closing it (Escape)
// answers null, and the page then does nothing.
export const GUEST = Object.freeze({ guest: true });

// The remembered player, or the one the person makes now (or GUEST, or null: see above).
// `refused`: the remembered key was just refused, which the dialog explains.
export function ensurePlayer(suggested = "", { refused = false } = {}) {
  return me() ? Promise.resolve(me()) : askForPlayer(suggested, { refused });
}

export function askForPlayer(suggested = "", { refused = false } = {}) {
  open ??= new Promise((resolve) => {
    let finished = false;
    const dialog = buildDialog(suggested, refused, (player) => {
      if (finished) return;
      finished = true;
      dialog.close();
      dialog.remove();
      open = null;
      resolve(player);
    });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector("#identity-name").focus();
  });
  return open;
}

// The player under the name typed in a form: made now if this browser has none, renamed if it
// had one under another name.
async function playerNamed(typed) {
  const had = me();
  const player = await ensurePlayer(typed);
  if (!player || player === GUEST || !had || !typed || player.name === typed) return player;
  return renamePlayer(typed);
}

// Runs `call(key)` as this browser's player (asking for a name first if needed), or
// `call(null)` as a guest under the typed name if the person chose that; answers null without
// calling if they closed the dialog. A refused key is forgotten, the name asked again, and the
// call made once more.
export async function asPlayer(typed, call) {
  let refused = false;
  for (;;) {
    try {
      const player = refused ? await ensurePlayer(typed, { refused }) : await playerNamed(typed);
      if (player === null) return null;
      if (player === GUEST) return await call(null);
      return await withKey(call);
    } catch (error) {
      if (error?.code !== "bad_player_key" || refused) throw error;
      refused = true;
    }
  }
}

function buildDialog(suggested, refused, done) {
  const error = h("p.dialog-error", { id: "identity-error", role: "alert", hidden: true });
  const showError = (problem) => {
    error.textContent = errorText(problem?.code ?? "error", problem?.message ?? "");
    error.hidden = false;
  };
  const name = h("input", {
    id: "identity-name",
    type: "text",
    maxlength: 32,
    required: true,
    autocomplete: "nickname",
    value: suggested,
    placeholder: t("lobby.name_placeholder"),
    "aria-describedby": "identity-help",
  });
  const code = h("input", {
    id: "identity-code",
    type: "text",
    maxlength: 12,
    autocomplete: "off",
    autocapitalize: "characters",
    placeholder: "XXXX-XXXX",
  });
  const attempt = async (event, button, call) => {
    event.preventDefault();
    button.disabled = true;
    try {
      done(await call());
    } catch (problem) {
      showError(problem);
      button.disabled = false;
    }
  };
  const save = h("button.primary", { type: "submit", id: "identity-save" }, t("player.save_name"));
  const link = h("button", { type: "submit", id: "identity-link" }, t("player.use_code"));
  const dialog = h(
    "dialog.identity-dialog",
    { id: "identity-dialog", "aria-labelledby": "identity-title", oncancel: () => done(null) },
    h(
      "form",
      {
        onsubmit: (event) => {
          const typed = name.value.trim();
          if (!typed) {
            event.preventDefault();
            showError({ code: "name_empty" });
            name.focus();
            return;
          }
          attempt(event, save, () => createPlayer(typed));
        },
      },
      h("h2", { id: "identity-title" }, t("player.ask_title")),
      refused ? h("p.dialog-note", { id: "identity-refused" }, t("player.key_refused")) : null,
      h("p.muted", { id: "identity-help" }, t("player.ask_help")),
      h("div.field", {}, h("label", { for: "identity-name" }, t("lobby.your_name")), name),
      error,
      h(
        "div.dialog-buttons",
        {},
        h("button.quiet", { type: "button", id: "identity-guest", onclick: () => done(GUEST) }, t("player.as_guest")),
        save,
      ),
    ),
    h(
      "details.link-other",
      {},
      h("summary", {}, t("player.have_code")),
      h(
        "form.inline",
        {
          onsubmit: (event) => {
            if (!code.value.trim()) {
              event.preventDefault();
              showError({ code: "link_code_wrong" });
              return;
            }
            attempt(event, link, () => linkDevice(code.value.trim()));
          },
        },
        h("label.sr-only", { for: "identity-code" }, t("player.code_label")),
        code,
        link,
      ),
    ),
  );
  return dialog;
}
