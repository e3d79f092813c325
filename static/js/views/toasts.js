// Short messages in a corner: errors from the server, confirmations such as "link copied".

import { errorText } from "../i18n.js";
import { h } from "./dom.js";

const SHOW_MS = 6000;

function region() {
  return document.getElementById("toasts");
}

export function toast(text, kind = "info") {
  const item = h(`div.toast.toast-${kind}`, { role: kind === "error" ? "alert" : "status" }, text);
  const close = h("button.toast-close", { "aria-label": "×", onclick: () => item.remove() }, "×");
  item.append(close);
  region().append(item);
  setTimeout(() => item.remove(), SHOW_MS);
  return item;
}

export function showError(error) {
  const code = error?.code ?? "error";
  const item = toast(errorText(code, error?.message ?? String(error)), "error");
  item.dataset.code = code;
  return item;
}

// A refusal is answered by the next accepted move: its message would only mislead after it.
export function clearErrors() {
  for (const item of region().querySelectorAll(".toast-error")) item.remove();
}
