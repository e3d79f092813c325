"""Every error code a client can receive, with its HTTP status and what it means.

One table for the REST handlers (the status of each code), the socket (the same codes in its
`error` messages), the protocol document and the client's language tables: a test walks the
code base for every code raised or sent and fails on one missing here.
"""

from __future__ import annotations

from dataclasses import dataclass

# An engine's rule codes (not_your_turn, ...) and room refusals are conflicts with the state.
CONFLICT = 409


@dataclass(frozen=True, slots=True)
class ErrorCode:
    status: int
    meaning: str


def _rule(meaning: str) -> ErrorCode:
    return ErrorCode(CONFLICT, meaning)


ERROR_CODES: dict[str, ErrorCode] = {
    # The request itself.
    "bad_request": ErrorCode(422, "the body, query or path does not match the schema"),
    "not_found": ErrorCode(404, "no such path"),
    "method_not_allowed": ErrorCode(405, "the path exists but not with this method"),
    "missing_token": ErrorCode(401, "the call needs 'Authorization: Bearer <seat token>'"),
    "bad_authorization": ErrorCode(401, "the Authorization header is not 'Bearer <seat token>'"),
    "body_too_large": ErrorCode(413, "the request body is over the size limit"),
    "bad_token": ErrorCode(401, "the seat token is not one of this room's"),
    "internal_error": ErrorCode(500, "the server failed; nothing was changed"),
    "storage_unavailable": ErrorCode(
        503, "the database cannot be reached or written; nothing was changed, try again"
    ),
    "room_moved": ErrorCode(
        503, "another server serves the room now; nothing was changed: retry or reconnect"
    ),
    "room_unavailable": ErrorCode(
        503, "the server holding the room did not answer; it is being taken over, try again"
    ),
    "server_stopping": ErrorCode(
        503, "the server stopped before it finished the request; read the state, then retry"
    ),
    # Rooms and the lobby.
    "unknown_game": ErrorCode(400, "no game of that name"),
    "bad_config": ErrorCode(400, "a game option is out of range or unknown"),
    "bad_players": ErrorCode(400, "that many players cannot play this game"),
    "bad_seat": ErrorCode(400, "no such seat, or more bots than seats"),
    "bad_level": ErrorCode(400, "no bot level of that name"),
    "room_not_found": ErrorCode(404, "no open room with that id"),
    "room_full": _rule("every seat is taken"),
    "seat_taken": _rule("the seat asked for is taken"),
    "match_started": _rule("seats and bots change only before the match"),
    "match_not_over": _rule("a rematch needs the match to be over"),
    "not_started": _rule("the match has not started"),
    "match_over": _rule("the match is over"),
    "not_between_hands": _rule("ready counts only before a match or between hands"),
    "not_a_bot": _rule("the seat is not held by a bot"),
    "not_a_person": _rule("the seat is not held by a person"),
    "player_present": _rule("the seat's player is connected or away for less than the grace"),
    "stale_version": _rule("the game changed after the version the action was made against"),
    "spectators_not_allowed": ErrorCode(403, "the room does not allow spectators"),
    "hints_disabled": ErrorCode(403, "the room gives no hints"),
    "no_hint": _rule("there is no move to suggest for the seat now"),
    # Table talk.
    "chat_disabled": ErrorCode(403, "the room's chat is turned off"),
    "chat_muted": ErrorCode(403, "the room's host muted the seat's chat for everyone"),
    "not_chat_host": ErrorCode(403, "only the room's host (its first person) mutes for everyone"),
    "chat_empty": ErrorCode(422, "the message is empty once control characters are removed"),
    "chat_too_long": ErrorCode(422, "the message is over 300 characters once cleaned"),
    "bad_reaction": ErrorCode(400, "the reaction is not one of the eight quick reactions"),
    # History.
    "match_not_found": ErrorCode(404, "no match with that id"),
    "replay_failed": ErrorCode(500, "a stored match no longer replays"),
    # Players.
    "players_unavailable": ErrorCode(503, "a server without a database keeps no players"),
    "missing_player_key": ErrorCode(401, "the call needs 'Authorization: Player <key>'"),
    "bad_player_key": ErrorCode(401, "the player key is unknown, signed out or forgotten"),
    "name_empty": ErrorCode(422, "the name is empty once control characters are removed"),
    "name_too_long": ErrorCode(422, "the name is over 32 characters once cleaned"),
    "name_taken": ErrorCode(409, "another player has this name (ignoring case)"),
    "link_code_wrong": ErrorCode(400, "the link code is not right"),
    "link_code_expired": ErrorCode(410, "the link code was used or is over 10 minutes old"),
    "link_code_locked": ErrorCode(423, "the link code was mistyped five times; make a new one"),
    "link_code_busy": ErrorCode(503, "no link code could be made; try again"),
    "player_not_found": ErrorCode(404, "no player with that id"),
    "unknown_mode": ErrorCode(400, "the game is not played by that many players"),
    # The operator's routes.
    "notice_empty": ErrorCode(422, "the notice is empty once white space is trimmed"),
    "notice_too_long": ErrorCode(422, "the notice is over 300 characters"),
    "notice_bad_characters": ErrorCode(
        422, "the notice holds control or format characters (line breaks, direction overrides)"
    ),
    # The socket only.
    "bad_json": ErrorCode(400, "the message is not JSON"),
    "bad_message": ErrorCode(400, "the message does not match its type's fields"),
    "unknown_type": ErrorCode(400, "the message's type is not one the server knows"),
    "unexpected_hello": ErrorCode(400, "hello is the first message only"),
    "message_too_large": ErrorCode(413, "the message is over the size limit"),
    "rate_limited": ErrorCode(429, "too many messages; this one was ignored"),
    "spectator": _rule(
        "a connection without a seat cannot act, get ready, ask for hints or post in the chat"
    ),
    "hint_pending": _rule("the connection's previous hint is still being worked out"),
    # The rules engines (both games).
    "bad_action": _rule("the action is malformed or unknown to the game"),
    "not_your_turn": _rule("the seat may not act now"),
    "wrong_phase": _rule("the action does not fit the turn's phase"),
    "game_over": _rule("the game is over"),
    "invalid_meld": _rule("a meld is neither a set nor a run"),
    # Gin Rummy.
    "card_not_in_hand": _rule("the card is not in the seat's hand"),
    "cannot_discard_taken_card": _rule("the card taken from the discard pile cannot go back"),
    "must_draw_from_stock": _rule("both players passed the upcard; draw from the stock"),
    "deadwood_too_high": _rule("the deadwood is over the knock limit"),
    "not_gin": _rule("deadwood remains, so this is not gin"),
    "big_gin_disabled": _rule("big gin is off in this match"),
    "invalid_layoff": _rule("a card cannot be laid off onto that meld of the knocker"),
    # Rummikub.
    "tile_not_on_rack": _rule("the tile is not on the seat's rack"),
    "table_tile_missing": _rule("a tile that was on the table is missing from it"),
    "tile_not_laid_this_turn": _rule("only tiles laid from the rack this turn go back"),
    "freed_joker_not_played": _rule("a joker taken from the table must be played this turn"),
    "initial_meld_below_30": _rule("the initial meld is worth less than required"),
    "initial_meld_touches_table": _rule("before the initial meld the table may not change"),
    "no_tile_played": _rule("no tile was laid this turn; draw instead"),
    "pool_empty": _rule("the pool is empty; pass instead"),
    "pool_not_empty": _rule("passing is allowed only once the pool is empty"),
    "round_over": _rule("the round is over"),
}


def status_of(code: str) -> int:
    """The HTTP status of a code; one the table does not know is a conflict."""
    entry = ERROR_CODES.get(code)
    return CONFLICT if entry is None else entry.status
