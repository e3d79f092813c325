// A table's moves go to the server one at a time: a move made while another is still on its
// way is dropped, a refusal is shown until a move is accepted, and the table redraws once the server has answered.

import { clearErrors, showError } from "./toasts.js";

export function createMover(controller, { accepted, settled }) {
  let busy = false;
  return async function act(action) {
    if (busy) return;
    busy = true;
    try {
      await controller.act(action);
      clearErrors();
      accepted();
    } catch (error) {
      showError(error);
    } finally {
      busy = false;
      settled();
    }
  };
}
