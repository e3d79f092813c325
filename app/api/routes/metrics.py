"""`/metrics`: the server's metrics in Prometheus's text format, behind MELDHALL_METRICS_TOKEN
(app.api.operator_door)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from app.api.errors import ApiError

router = APIRouter(tags=["metrics"])


@router.get("/metrics", response_class=Response, include_in_schema=False)
async def metrics(request: Request) -> Response:
    registry: CollectorRegistry | None = request.app.state.meters.registry
    if registry is None:
        raise ApiError("not_found", "Not Found")
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
