// The "Hint" button both tables share: asks the server for the seat's suggested move and keeps
// the answer while the game it was made for is unchanged (any move, by anyone, drops it).

import { t } from "../i18n.js";
import { h } from "./dom.js";
import { showError } from "./toasts.js";

export function createHint(controller, redraw) {
  let answer = null;
  let madeFor = null;
  let asking = false;

  const offered = (state) =>
    Boolean(controller) && state?.room?.hints !== false && (state?.you?.legal?.length ?? 0) > 0;

  async function ask(state) {
    if (asking) return;
    asking = true;
    redraw();
    const key = JSON.stringify(state.game);
    try {
      const reply = await controller.hint();
      answer = reply.action;
      madeFor = key;
    } catch (error) {
      showError(error);
    } finally {
      asking = false;
      redraw();
    }
  }

  return {
    // The suggested action for this state, or null.
    action(state) {
      if (answer && (!offered(state) || JSON.stringify(state.game) !== madeFor)) answer = null;
      return answer;
    },
    clear() {
      answer = null;
    },
    button(state) {
      if (!offered(state)) return null;
      return h(
        "button.hint-button",
        { type: "button", id: "hint-button", disabled: asking, onclick: () => ask(state) },
        asking ? t("hint.thinking") : t("hint.button"),
      );
    },
  };
}
