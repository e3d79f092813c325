"""Gin Rummy for 2, 3 or 4 players, as rule document 000 fixes it, with the variants of 004.

Rules: 52 cards, ace low (1 point), J/Q/K 10 points, others face value. A set is 3 or 4 cards of
one rank; a run is 3+ consecutive cards of one suit, ace low only, no wrap. Deadwood is the
point total of the cards outside melds under the best melding (exact, see `melds`). Each player
gets 10 cards, dealt alternately from the non-dealer; the next card is the upcard. First turn:
the non-dealer may take the upcard or pass, then the dealer; if both pass the non-dealer draws
from the stock. A turn is a draw (stock or discard top) and a discard; a card taken from the
discard pile is not discarded (nor knocked with) in the same turn. After drawing, a player
whose 10 kept cards have deadwood <= the knock limit may knock (knock card face down); with
deadwood 0 that is gin, and with all 11 cards melded big gin (no discard). The knocker may
lay out melds of their choice (`melds`, checked: sets and runs of cards kept, none twice);
otherwise the engine lays out a minimum-deadwood arrangement, and among equal ones the one
that offers the defender the fewest points to lay off as far as the knocker can see, never
by the defender's hidden cards (`layoffs.knocker_layout`). The defender lays out and lays off
onto the knocker's melds (not after gin or big gin): with lay_offs "choose" (the default) and a
lay-off that would lower its deadwood, the table goes to phase "lay_off", the knocker's cards
and layout (`knock`) open, and the defender answers with `lay_off`, choosing its lay-offs (any
that fit, none, or the best when omitted); otherwise, and with lay_offs "auto", the engine lays
off the defender's best at once. The defender's own cards are always laid out with the least
deadwood. Knock: knocker scores the deadwood difference, or
is undercut when the defender's deadwood is <= the knocker's. When a discard leaves two stock
cards and nobody knocked, the hand is a draw. The first dealer is chosen by a low-card draw
from the seed (ties by suit C < D < H < S); then the loser of a hand deals; after a draw the
same dealer deals again. The match ends when a side's total reaches the target; the game bonus,
line bonuses and the shutout rule are added by `result()`.

Players: 2 - one table. 3 - the dealer sits out each hand and the deal rotates to the next
seat after every hand (drawn or not). 4 - partnerships seats 0+2 and 1+3, two tables played at
once (table 0: seats 0 v 1, table 1: seats 2 v 3), each with its own deck and dealer; a round
ends when both tables are done, partners' points add up, and the next round is dealt at both
tables. `to_act()` may list two seats. `deck` given to `new` orders the first hand at every
table; later hands are shuffled from (seed, table, hand number).

Options (`GinRummy.validate_config`), defaults in brackets: knock_limit [10] (0..10, 0 = gin
only), gin_bonus [25], big_gin_bonus [31] (0 turns big gin off), undercut_bonus [25], target
[100], game_bonus [100], line_bonus [25] (per hand won), shutout ["double"] ("double": every
hand's points of the winner doubled when the winner won every hand and none was drawn;
"plus_100": +100 instead; "none"), oklahoma [false] (knock limit = the upcard's value, an ace
upcard means gin only), lay_offs ["choose"] ("choose": the defender chooses its lay-offs;
"auto": the engine lays off the defender's best at once).

Actions (seat = the acting seat):
  {"type": "take_upcard"} | {"type": "pass"}             first-turn upcard offer
  {"type": "draw", "source": "stock" | "discard"}
  {"type": "discard", "card": "H7"}
  {"type": "knock", "card": "H7", "melds": [["H1", "H2", "H3"], ...]}   melds optional
  {"type": "gin", "card": "H7"}    (melds optional, as for knock)
  {"type": "big_gin"}
  {"type": "lay_off", "layoffs": [{"card": "H4", "meld": 0}, ...]}   the defender, phase
                                   lay_off; meld indexes the table's `knock` melds; layoffs
                                   omitted: the best
  {"type": "next_hand"}            system action, seat None, phase "hand_over"
`legal_actions(seat)` lists every legal action: knock and gin once per card they may be made
with (gin where the rest has no deadwood, knock where it has some within the limit), melds
omitted, and lay_off twice: with the best lay-offs, then with none. A knock whose
arrangement has no deadwood is scored as gin.

Phases: "playing", "hand_over", "match_over"; each table has its own phase "upcard_offer",
"draw", "discard", "lay_off" or "over".

View (`view(seat)`): game, seat, players, phase, config, hand_number, to_act, sides, scores
(hand points per seat), side_scores, hands_won, history (per hand: hand, table, dealer, ending,
knocker, winner, points), tables, me, result. Each table: table, hand, dealer, seats [first
player, second], phase, turn, stock_count, discard_pile (bottom first), knock_limit, players
[{seat, card_count, taken_from_discard, cards (everyone's once a knock lays them open, the
knocker's alone in phase lay_off; else null, one's own included: a table is the same in every
view)}], knock (in phase lay_off: the knocker's {seat, melds, deadwood, deadwood_points}; else
null), outcome (the hand record below, once over). `me` (a seat playing the current hand):
seat, table, hand, arrangement {melds, deadwood, deadwood_points}, knock_deadwood (holding 11
cards: the lowest deadwood any allowed knock card leaves), taken_this_turn (on one's own turn,
the card taken from the discard pile; else null).

Hidden (`hidden_from`, `hidden_at`): the stock; the knock card (face down) from all but the
knocker; the other hand, except cards seen taken from the discard pile, until a knock lays
both hands open (the knocker's alone while the defender chooses its lay-offs). A drawn hand's
cards stay hidden. With four players card names repeat across the two tables, so
`hidden_at(seat, table)` is the exact set per table and `hidden_from(seat)` the names hidden
at every table.

Hand record (`hand_results()`): hand, table, dealer, seats, knock_limit, ending ("knock",
"gin", "big_gin", "undercut", "draw"), knocker, winner, loser, deadwood_difference, bonus,
points (= bonus + deadwood_difference, to the winner), players [{seat, melds, deadwood,
deadwood_points, layoffs [{card, meld: index into the knocker's melds}]}] (empty for a draw).

Errors (IllegalAction codes): not_your_turn, wrong_phase, card_not_in_hand,
cannot_discard_taken_card, must_draw_from_stock, deadwood_too_high ("deadwood 14 > 10"),
not_gin, big_gin_disabled, invalid_meld, invalid_layoff, bad_action, game_over, bad_config.
"""

from app.games.engine import IllegalAction
from app.games.gin_rummy.engine import GinRummy
from app.games.gin_rummy.melds import Arrangement, best_arrangement, min_deadwood

__all__ = ["Arrangement", "GinRummy", "IllegalAction", "best_arrangement", "min_deadwood"]
