// Choosing the melds to lay out when knocking. When the cards a knock keeps can be laid out
// in more than one way with the least deadwood (H4-H7 with 7-7-7, or H4-H6 with 7-7-7-7),
// a small chooser sits beside that knock's button, the best layout (the one the server
// would lay out) chosen; the knock sends the chosen layout's melds.

import { cardName } from "../game_text.js";
import { t } from "../i18n.js";
import { knockLayouts } from "../rules/gin_layouts.js";
import { h } from "./dom.js";

function meldsText(melds) {
  return melds.map((meld) => meld.map(cardName).join(" ")).join(" · ");
}

export function createLayoutPicker(redraw) {
  // Per hand and knock card: the layout chosen and whether the chooser is open.
  const picks = new Map();

  // What the knocker sees of the cards the defender cannot hold, or holds for sure.
  function visible(game, table) {
    const opponent = table.players.find((p) => p.seat !== game.me.seat);
    const taken = opponent?.taken_from_discard ?? [];
    return {
      seen: [...game.me.hand, ...table.discard_pile],
      defenderKnown: taken,
      defenderHidden: (opponent?.card_count ?? 10) - taken.length,
    };
  }

  return {
    // {action, element} for a knock `ending` ({type: "knock", card}); the element is null
    // when there is only one way to lay the cards out.
    knock(ending, game, table) {
      const kept = game.me.hand.filter((card) => card !== ending.card);
      const layouts = knockLayouts(kept, visible(game, table));
      const id = `${[...game.me.hand].sort().join(" ")}|${ending.card}`;
      const pick = picks.get(id) ?? { index: 0, open: false };
      const chosen = layouts[pick.index] ?? layouts[0];
      const action = { type: ending.type, card: ending.card, melds: chosen.melds };
      if (layouts.length < 2) return { action: { type: ending.type, card: ending.card }, element: null };
      const choose = (index) => {
        picks.set(id, { index, open: true });
        redraw();
      };
      const element = h(
        "details.layout-picker",
        {
          dataset: { card: ending.card },
          open: pick.open,
          ontoggle: (event) => picks.set(id, { ...pick, open: event.target.open }),
        },
        h("summary", {}, t("gin.layout", { card: cardName(ending.card) }), ": ", meldsText(chosen.melds)),
        layouts.map((layout, index) =>
          h(
            "label.layout-option",
            {},
            h("input", {
              type: "radio",
              name: `layout-${ending.card}`,
              value: String(index),
              checked: layout === chosen,
              onchange: () => choose(index),
            }),
            " ",
            meldsText(layout.melds),
            index === 0 ? h("span.muted", {}, " ", t("gin.layout_best")) : null,
          ),
        ),
      );
      return { action, element };
    },
  };
}
