"""deploy/: the Prometheus scrape example, the monitoring compose file and the Grafana dashboard
say only what the server does: its port, its path and token, the names of its metrics."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.api.live import bearer, live_server

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
TOKEN = "metrics-token-for-the-deploy-files"


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def dashboard_expressions() -> list[str]:
    dashboard = json.loads((DEPLOY / "grafana" / "dashboards" / "meldhall.json").read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def test_prometheus_scrapes_every_node_of_the_cluster_profile_with_the_token() -> None:
    (job,) = load(DEPLOY / "prometheus.yml")["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    assert job["authorization"]["type"] == "Bearer"
    (found,) = job["dns_sd_configs"]
    compose = load(ROOT / "docker-compose.yml")["services"]
    # Every service that runs the server, on the port it listens on inside its container.
    servers = {
        name for name, service in compose.items() if service.get("image") == "meldhall:latest"
    }
    assert set(found["names"]) == servers == {"app", "node"}
    assert found["port"] == 8000


def test_the_monitoring_compose_file_adds_prometheus_and_grafana_and_changes_nothing_else() -> None:
    monitoring = load(DEPLOY / "compose.monitoring.yml")
    assert set(monitoring["services"]) == {"prometheus", "grafana"}
    prometheus = monitoring["services"]["prometheus"]
    token = prometheus["environment"]["MELDHALL_METRICS_TOKEN"]
    # Refused without the token, which the nodes read from the same .env.
    assert token.startswith("${MELDHALL_METRICS_TOKEN:?")
    assert "/etc/prometheus/metrics_token" in " ".join(prometheus["entrypoint"])
    scrape = load(DEPLOY / "prometheus.yml")["scrape_configs"][0]
    assert scrape["authorization"]["credentials_file"] == "/etc/prometheus/metrics_token"
    mounted = [
        volume.split(":")[0]
        for service in monitoring["services"].values()
        for volume in service["volumes"]
    ]
    for source in mounted:
        if source.startswith("./"):
            assert (ROOT / source).exists(), source
    app = load(ROOT / "docker-compose.yml")["services"]["app"]["environment"]
    assert app["MELDHALL_METRICS_TOKEN"] == "${MELDHALL_METRICS_TOKEN:-}"


def test_the_dashboard_reads_only_metrics_the_server_exports() -> None:
    with live_server(metrics_token=TOKEN) as server:
        text = httpx.get(f"{server.http}/metrics", headers=bearer(TOKEN)).text
    exported = set(re.findall(r"^# TYPE (\S+) (\S+)", text, flags=re.MULTILINE))
    names = set()
    for name, kind in exported:
        names.add(name)
        if kind == "histogram":
            names |= {f"{name}_bucket", f"{name}_sum", f"{name}_count"}
    used = {
        name
        for expression in dashboard_expressions()
        for name in re.findall(r"\b((?:meldhall|process)_[a-z_]+)\b", expression)
    }
    assert used, "the dashboard reads no metric"
    assert used <= names, used - names
    # Every metric of the server's own is on the dashboard.
    own = {name for name, _ in exported if name.startswith("meldhall_")}
    shown = {re.sub(r"_(bucket|sum|count)$", "", name) for name in used}
    assert own <= shown, own - shown
