"""`meldhall admin ...`: the operator's routes (app.api.routes.admin) from a shell, over HTTP.

The server's address comes from --url or MELDHALL_ADMIN_URL (http://127.0.0.1:8000 unless
set), the token from --token or MELDHALL_ADMIN_TOKEN, as the server itself reads it. A room id
may begin with "-": put "--" before it (`meldhall admin close -- -Xb3...`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, NoReturn

DEFAULT_URL = "http://127.0.0.1:8000"
TIMEOUT_S = 30
# The exit status of a refused or failed call.
REFUSED = 1


def add_commands(commands: Any) -> None:
    """`admin` and its subcommands, on the `meldhall` parser's subparsers."""
    admin = commands.add_parser(
        "admin",
        help="the operator's routes of a running server",
        epilog='a room id that begins with "-" goes after "--": close -- -Xb3q...',
    )
    admin.add_argument("--url", help=f"the server (MELDHALL_ADMIN_URL, else {DEFAULT_URL})")
    admin.add_argument("--token", help="the admin token (MELDHALL_ADMIN_TOKEN)")
    admin.add_argument("--json", action="store_true", help="print the server's JSON answer")
    actions = admin.add_subparsers(dest="admin_command", required=True)
    actions.add_parser("rooms", help="every open room, private ones too")
    close = actions.add_parser("close", help="close a room; its match is kept as abandoned")
    close.add_argument("room_id")
    close.add_argument("--reason", help="told to the room's sockets before they close")
    bot = actions.add_parser("bot", help="hand a person's seat to a bot now")
    bot.add_argument("room_id")
    bot.add_argument("seat", type=int)
    bot.add_argument("--level", choices=("easy", "normal", "hard"), default="normal")
    bot.add_argument(
        "--revoke", action="store_true", help="the seat's token stops working (a kick)"
    )
    notice = actions.add_parser("notice", help="show a notice at every open table")
    notice.add_argument("text")


def run(args: argparse.Namespace) -> None:
    url = (args.url or os.environ.get("MELDHALL_ADMIN_URL") or DEFAULT_URL).rstrip("/")
    token = args.token or os.environ.get("MELDHALL_ADMIN_TOKEN") or ""
    if not token:
        stop("give the admin token: --token or MELDHALL_ADMIN_TOKEN")
    command = args.admin_command
    if command == "rooms":
        answer = call(url, token, "GET", "/api/admin/rooms")
        show(args, answer, rooms_table(answer["rooms"]))
    elif command == "close":
        body = {} if args.reason is None else {"reason": args.reason}
        room = quote(args.room_id)
        answer = call(url, token, "POST", f"/api/admin/rooms/{room}/close", body)
        show(args, answer, f"closed room {answer['room_id']} ({answer['status']})")
    elif command == "bot":
        room = quote(args.room_id)
        body = {"level": args.level, "revoke": args.revoke}
        path = f"/api/admin/rooms/{room}/seats/{args.seat}/bot"
        answer = call(url, token, "POST", path, body)
        show(args, answer, f"seat {args.seat} of room {answer['room_id']} is a bot's now")
    elif command == "notice":
        answer = call(url, token, "POST", "/api/admin/notice", {"text": args.text})
        show(args, answer, f"notice posted: {answer['text']}")


def quote(part: str) -> str:
    return urllib.parse.quote(part, safe="")


def call(url: str, token: str, method: str, path: str, body: Any = None) -> Any:
    """The route's JSON answer; stops with the server's error code and message if refused."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as refused:
        stop(refusal(refused))
    except (urllib.error.URLError, OSError) as error:
        stop(f"cannot reach {url}: {getattr(error, 'reason', error)}")


def refusal(refused: urllib.error.HTTPError) -> str:
    try:
        error = json.loads(refused.read())["error"]
        code, message = error["code"], error["message"]
    except (ValueError, KeyError, TypeError):
        return f"the server answered {refused.code}"
    if code == "not_found":
        # Wrong token, no token set on the server, or a server too old: all look alike.
        return (
            "the server has no admin routes for this token: is MELDHALL_ADMIN_TOKEN set on "
            "the server, and the same as here?"
        )
    return f"{code}: {message}"


def rooms_table(rooms: list[dict[str, Any]]) -> str:
    if not rooms:
        return "no open rooms"
    lines = [f"{'room':<24} {'game':<10} {'status':<13} {'node':<24} {'idle s':>8}  seats"]
    for room in rooms:
        seats = ", ".join(seat_text(seat) for seat in room["seats"])
        lines.append(
            f"{room['room_id']:<24} {room['game']:<10} {room['status']:<13} "
            f"{room['node']:<24} {room['idle_s']:>8.0f}  {seats}"
        )
    return "\n".join(lines)


def seat_text(seat: dict[str, Any]) -> str:
    if seat["kind"] == "empty":
        return f"{seat['seat']}: empty"
    kind = "bot" if seat["kind"] == "bot" else ("on" if seat["connections"] else "away")
    return f"{seat['seat']}: {seat['name']} ({kind})"


def show(args: argparse.Namespace, answer: Any, text: str) -> None:
    print(json.dumps(answer, indent=2, ensure_ascii=False) if args.json else text)


def stop(line: str) -> NoReturn:
    print(f"meldhall admin: {line}", file=sys.stderr)
    sys.exit(REFUSED)
