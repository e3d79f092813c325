"""Legal actions and their effect within one hand; `apply_action` dispatches on the phase.

Every check runs before the first change, so a refused action leaves the hand as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from app.games.engine import Action, IllegalAction
from app.games.gin_rummy.cards import CARD_NAMES, CARD_POINTS, names, parse_card, to_mask
from app.games.gin_rummy.hand import DISCARD, DRAW, LAY_OFF, OVER, UPCARD_OFFER, Hand
from app.games.gin_rummy.layoffs import best_defence, chosen_defence, knocker_layout
from app.games.gin_rummy.melds import Arrangement, best_arrangement_mask, is_meld, min_deadwood_mask
from app.games.gin_rummy.scoring import end_by_knock, end_in_draw

# The hand is a draw when a discard leaves this many stock cards and nobody has knocked.
DRAW_AT_STOCK = 2

_PHASE_ACTIONS = {
    UPCARD_OFFER: ("take_upcard", "pass"),
    DRAW: ("draw",),
    DISCARD: ("discard", "knock", "gin", "big_gin"),
    LAY_OFF: ("lay_off",),
}
_ACTION_TYPES = frozenset(kind for kinds in _PHASE_ACTIONS.values() for kind in kinds)
ACTION_FIELDS: dict[str, frozenset[str]] = {
    "take_upcard": frozenset({"type"}),
    "pass": frozenset({"type"}),
    "draw": frozenset({"type", "source"}),
    "discard": frozenset({"type", "card"}),
    "knock": frozenset({"type", "card", "melds"}),
    "gin": frozenset({"type", "card", "melds"}),
    "big_gin": frozenset({"type"}),
    "lay_off": frozenset({"type", "layoffs"}),
    "next_hand": frozenset({"type"}),
}


def _name(card: int) -> str:
    return CARD_NAMES[card]


# The actions a legal list offers, one object each, shared by every list (read-only, like
# every part of a view): the discard phase offers up to 11 discards, knocks and gins a turn.
_TAKE_UPCARD: Final[Action] = {"type": "take_upcard"}
_PASS: Final[Action] = {"type": "pass"}
_DRAW_STOCK: Final[Action] = {"type": "draw", "source": "stock"}
_DRAW_DISCARD: Final[Action] = {"type": "draw", "source": "discard"}
_BIG_GIN: Final[Action] = {"type": "big_gin"}
_DISCARDS: Final[tuple[Action, ...]] = tuple(
    {"type": "discard", "card": name} for name in CARD_NAMES
)
_KNOCKS: Final[tuple[Action, ...]] = tuple({"type": "knock", "card": name} for name in CARD_NAMES)
_GINS: Final[tuple[Action, ...]] = tuple({"type": "gin", "card": name} for name in CARD_NAMES)


def legal_actions(hand: Hand, seat: int, config: Mapping[str, Any]) -> list[Action]:
    if hand.phase is OVER or hand.seats[hand.turn] != seat:
        return []
    if hand.phase is UPCARD_OFFER:
        return [_TAKE_UPCARD, _PASS]
    if hand.phase is DRAW:
        if hand.discard and not hand.stock_only:
            return [_DRAW_STOCK, _DRAW_DISCARD]
        return [_DRAW_STOCK]
    if hand.phase is LAY_OFF:
        return _lay_off_actions(hand)
    return _discard_phase_actions(hand, config)


def _lay_off_actions(hand: Hand) -> list[Action]:
    """The defender's best lay-offs, then none (any other lay-offs that fit may be sent)."""
    assert hand.laid_out is not None
    best = best_defence(to_mask(hand.cards[hand.turn]), hand.laid_out.melds).layoffs
    actions: list[Action] = [
        {"type": "lay_off", "layoffs": [{"card": _name(card), "meld": meld} for card, meld in best]}
    ]
    if best:
        actions.append({"type": "lay_off", "layoffs": []})
    return actions


def _discard_phase_actions(hand: Hand, config: Mapping[str, Any]) -> list[Action]:
    cards = hand.cards[hand.turn]
    mask = to_mask(cards)
    playable = sorted(card for card in cards if card != hand.taken)
    actions: list[Action] = [_DISCARDS[card] for card in playable]
    whole = min_deadwood_mask(mask)
    limit = hand.knock_limit
    for card in playable:
        # Setting a card aside lowers the deadwood by at most its own points, so most
        # hands are ruled out without a search per card.
        if whole - CARD_POINTS[card] > limit:
            continue
        deadwood = min_deadwood_mask(mask & ~(1 << card))
        if deadwood == 0:
            actions.append(_GINS[card])
        elif deadwood <= hand.knock_limit:
            actions.append(_KNOCKS[card])
    if config["big_gin_bonus"] > 0 and whole == 0:
        actions.append(_BIG_GIN)
    return actions


def apply_action(
    hand: Hand, seat: int | None, action: Mapping[str, Any], config: Mapping[str, Any]
) -> None:
    """Apply one player action to the hand or raise IllegalAction with the hand unchanged."""
    kind = action.get("type") if type(action) is dict or isinstance(action, Mapping) else None
    if not isinstance(kind, str) or kind not in _ACTION_TYPES:
        raise IllegalAction("bad_action", f"unknown action type {kind!r}")
    if hand.phase is OVER:
        raise IllegalAction("wrong_phase", "this hand is over")
    if seat != hand.seats[hand.turn]:
        raise IllegalAction("not_your_turn", f"it is seat {hand.seats[hand.turn]}'s turn")
    if kind not in _PHASE_ACTIONS[hand.phase]:
        expected = " or ".join(_PHASE_ACTIONS[hand.phase])
        raise IllegalAction("wrong_phase", f"{kind} is not possible now; expected {expected}")
    _HANDLERS[kind](hand, action, config)


def _card_in_hand(hand: Hand, action: Mapping[str, Any]) -> int:
    try:
        card = parse_card(action.get("card"))
    except ValueError as error:
        raise IllegalAction("bad_action", str(error)) from None
    if card not in hand.cards[hand.turn]:
        raise IllegalAction("card_not_in_hand", f"{_name(card)} is not in your hand")
    if card == hand.taken:
        raise IllegalAction(
            "cannot_discard_taken_card",
            f"{_name(card)} was taken from the discard pile this turn",
        )
    return card


def _take(hand: Hand, card: int) -> None:
    hand.cards[hand.turn].append(card)
    hand.cards[hand.turn].sort()
    hand.phase = DISCARD


def _take_upcard(hand: Hand, action: Mapping[str, Any], config: Mapping[str, Any]) -> None:
    card = hand.discard.pop()
    hand.known[hand.turn].append(card)
    hand.taken = card
    _take(hand, card)


def _pass(hand: Hand, action: Mapping[str, Any], config: Mapping[str, Any]) -> None:
    hand.passes += 1
    hand.turn = 1 - hand.turn
    if hand.passes == 2:
        hand.phase = DRAW
        hand.stock_only = True


def _draw(hand: Hand, action: Mapping[str, Any], config: Mapping[str, Any]) -> None:
    source = action.get("source")
    if source == "stock":
        hand.stock_only = False
        _take(hand, hand.stock.pop())
        return
    if source != "discard":
        raise IllegalAction("bad_action", f"source must be stock or discard, got {source!r}")
    if hand.stock_only or not hand.discard:
        raise IllegalAction(
            "must_draw_from_stock", "both players passed the upcard; draw from the stock"
        )
    _take_upcard(hand, action, config)


def _discard(hand: Hand, action: Mapping[str, Any], config: Mapping[str, Any]) -> None:
    card = _card_in_hand(hand, action)
    _remove(hand, card)
    hand.discard.append(card)
    hand.taken = None
    if len(hand.stock) <= DRAW_AT_STOCK:
        end_in_draw(hand)
        return
    hand.turn = 1 - hand.turn
    hand.phase = DRAW


def _remove(hand: Hand, card: int) -> None:
    hand.cards[hand.turn].remove(card)
    if card in hand.known[hand.turn]:
        hand.known[hand.turn].remove(card)


def _submitted_arrangement(rest: list[int], raw: object) -> Arrangement:
    if not isinstance(raw, list) or not all(isinstance(meld, list) for meld in raw):
        raise IllegalAction("invalid_meld", "melds must be a list of lists of cards")
    try:
        melds = [tuple(sorted(parse_card(name) for name in meld)) for meld in raw]
    except ValueError as error:
        raise IllegalAction("invalid_meld", str(error)) from None
    used: set[int] = set()
    for meld in melds:
        shown = " ".join(names(meld))
        if len(set(meld)) != len(meld):
            raise IllegalAction("invalid_meld", f"{shown} names a card twice")
        if not is_meld(meld):
            raise IllegalAction("invalid_meld", f"{shown} is neither a set nor a run")
        if not set(meld) <= set(rest):
            raise IllegalAction("invalid_meld", f"{shown} uses a card you do not keep")
        if used & set(meld):
            raise IllegalAction("invalid_meld", f"{shown} reuses a card of another meld")
        used |= set(meld)
    deadwood = tuple(sorted(card for card in rest if card not in used))
    return Arrangement(melds=tuple(melds), deadwood=deadwood)


def _knock(hand: Hand, action: Mapping[str, Any], config: Mapping[str, Any]) -> None:
    card = _card_in_hand(hand, action)
    rest = [held for held in hand.cards[hand.turn] if held != card]
    if action.get("melds") is None:
        other = 1 - hand.turn
        arrangement = knocker_layout(
            to_mask(rest),
            seen=to_mask(hand.cards[hand.turn]) | to_mask(hand.discard),
            defender_known=to_mask(hand.known[other]),
            defender_hidden=len(hand.cards[other]) - len(hand.known[other]),
        )
    else:
        arrangement = _submitted_arrangement(rest, action["melds"])
    deadwood = arrangement.deadwood_points
    if action["type"] == "gin" and deadwood != 0:
        raise IllegalAction("not_gin", f"deadwood {deadwood} after discarding {_name(card)}")
    if deadwood > hand.knock_limit:
        raise IllegalAction("deadwood_too_high", f"deadwood {deadwood} > {hand.knock_limit}")
    _remove(hand, card)
    hand.knock_card = card
    defender = to_mask(hand.cards[1 - hand.turn])
    if (
        config["lay_offs"] == "choose"
        and deadwood > 0
        and best_defence(defender, arrangement.melds).layoffs
    ):
        # The defender chooses what to lay off (its turn); the hand ends with its answer.
        # Where laying off would not lower its deadwood the choice is moot: no such turn.
        hand.knocker = hand.turn
        hand.laid_out = arrangement
        hand.phase = LAY_OFF
        hand.turn = 1 - hand.turn
        hand.taken = None
        return
    end_by_knock(hand, hand.turn, "knock", arrangement, config)


def _parsed_layoffs(raw: object) -> list[tuple[int, int]]:
    if not isinstance(raw, list):
        raise IllegalAction("invalid_layoff", "layoffs must be a list of {card, meld}")
    parsed = []
    for item in raw:
        if not isinstance(item, Mapping) or set(item) != {"card", "meld"}:
            raise IllegalAction("invalid_layoff", "each lay-off is an object {card, meld}")
        meld = item["meld"]
        if isinstance(meld, bool) or not isinstance(meld, int):
            raise IllegalAction("invalid_layoff", f"meld must be an integer, got {meld!r}")
        try:
            parsed.append((parse_card(item["card"]), meld))
        except ValueError as error:
            raise IllegalAction("invalid_layoff", str(error)) from None
    return parsed


def _lay_off(hand: Hand, action: Mapping[str, Any], config: Mapping[str, Any]) -> None:
    knocker, arrangement = hand.knocker, hand.laid_out
    assert knocker is not None
    assert arrangement is not None
    defender = to_mask(hand.cards[hand.turn])
    raw = action.get("layoffs")
    if raw is None:
        defence = best_defence(defender, arrangement.melds)
    else:
        try:
            defence = chosen_defence(defender, arrangement.melds, _parsed_layoffs(raw))
        except ValueError as error:
            raise IllegalAction("invalid_layoff", str(error)) from None
    end_by_knock(hand, knocker, "knock", arrangement, config, defence)


def _big_gin(hand: Hand, action: Mapping[str, Any], config: Mapping[str, Any]) -> None:
    if config["big_gin_bonus"] == 0:
        raise IllegalAction("big_gin_disabled", "big gin is off in this match")
    arrangement = best_arrangement_mask(to_mask(hand.cards[hand.turn]))
    if arrangement.deadwood_points != 0:
        raise IllegalAction("not_gin", f"deadwood {arrangement.deadwood_points} with all 11 cards")
    end_by_knock(hand, hand.turn, "big_gin", arrangement, config)


_HANDLERS: dict[str, Callable[[Hand, Mapping[str, Any], Mapping[str, Any]], None]] = {
    "take_upcard": _take_upcard,
    "pass": _pass,
    "draw": _draw,
    "discard": _discard,
    "knock": _knock,
    "gin": _knock,
    "big_gin": _big_gin,
    "lay_off": _lay_off,
}
