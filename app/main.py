"""The ASGI application."""

from fastapi import FastAPI


def create_app() -> FastAPI:
    app = FastAPI(title="meldhall", version="0.1.0")

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
