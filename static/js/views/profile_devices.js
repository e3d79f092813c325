// One's own profile's last panel: a link code for another device, a code from another device,
// signing every other device out, and forgetting this player (after a confirmation).

import { forgetMe, linkDevice, newLinkCode, signOutOthers } from "../identity.js";
import { errorText, language, t } from "../i18n.js";
import { clear, h } from "./dom.js";
import { toast } from "./toasts.js";

function problemText(problem) {
  return errorText(problem?.code ?? "error", problem?.message ?? "");
}

// A button that runs `call`, disabled meanwhile; its failure is written into `error`.
function action(id, label, call, error) {
  const button = h("button", {
    type: "button",
    id,
    onclick: async () => {
      button.disabled = true;
      error.hidden = true;
      try {
        await call();
      } catch (problem) {
        error.textContent = problemText(problem);
        error.hidden = false;
      }
      button.disabled = false;
    },
  }, label);
  return button;
}

function linkCodePart(error) {
  const shown = h("div.link-code-box", { id: "link-code-box", "aria-live": "polite" });
  const show = async () => {
    const made = await newLinkCode();
    const until = new Date(made.expires_at).toLocaleTimeString(language(), { hour: "2-digit", minute: "2-digit" });
    clear(
      shown,
      h("code.link-code", { id: "link-code" }, made.code),
      h("span.muted", { id: "link-code-expiry" }, t("devices.code_until", { time: until })),
    );
  };
  return [
    h("h3", {}, t("devices.code_title")),
    h("p.muted", {}, t("devices.code_help")),
    action("link-code-button", t("devices.code_button"), show, error),
    shown,
  ];
}

function enterCodePart(error, navigate) {
  const input = h("input", { id: "link-enter-code", type: "text", maxlength: 12, autocomplete: "off", autocapitalize: "characters", placeholder: "XXXX-XXXX" });
  const submit = async (event) => {
    event.preventDefault();
    error.hidden = true;
    try {
      const player = await linkDevice(input.value.trim());
      toast(t("devices.linked", { name: player.name }));
      navigate(`/p/${player.id}`);
    } catch (problem) {
      error.textContent = problemText(problem);
      error.hidden = false;
    }
  };
  return [
    h("h3", {}, t("devices.enter_title")),
    h("p.muted", {}, t("devices.enter_help")),
    h(
      "form.inline",
      { onsubmit: submit },
      h("label.sr-only", { for: "link-enter-code" }, t("player.code_label")),
      input,
      h("button", { type: "submit", id: "link-enter" }, t("player.use_code")),
    ),
  ];
}

function forgetPart(error, navigate) {
  const box = h("div.forget");
  const ask = () =>
    clear(
      box,
      h("p.warning", { id: "forget-warning" }, t("devices.forget_warning")),
      h(
        "div.dialog-buttons",
        {},
        h("button.quiet", { type: "button", id: "forget-cancel", onclick: idle }, t("devices.forget_cancel")),
        action("forget-confirm", t("devices.forget_confirm"), async () => {
          await forgetMe();
          toast(t("devices.forgotten"));
          navigate("/");
        }, error),
      ),
    );
  const idle = () => clear(box, h("button.danger", { type: "button", id: "forget-me", onclick: ask }, t("devices.forget_button")));
  idle();
  return [h("h3", {}, t("devices.forget_title")), h("p.muted", {}, t("devices.forget_help")), box];
}

export function ownDevices({ navigate }) {
  const error = h("p.form-error", { id: "devices-error", role: "alert", hidden: true });
  const signOut = async () => {
    await signOutOthers();
    toast(t("devices.signed_out"));
  };
  return h(
    "section.panel.devices",
    { id: "devices" },
    h("h2", {}, t("devices.title")),
    error,
    linkCodePart(error),
    enterCodePart(error, navigate),
    h("h3", {}, t("devices.sign_out_title")),
    h("p.muted", {}, t("devices.sign_out_help")),
    action("sign-out-others", t("devices.sign_out_button"), signOut, error),
    forgetPart(error, navigate),
  );
}
