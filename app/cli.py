"""The `meldhall` command: serve the app."""

import argparse
import os

import uvicorn


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="meldhall")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the server")
    serve.add_argument("--host", default=os.environ.get("MELDHALL_HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("MELDHALL_PORT", "8000")))
    args = parser.parse_args(argv)
    if args.command == "serve":
        uvicorn.run("app.main:create_app", factory=True, host=args.host, port=args.port)
