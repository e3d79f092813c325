"""Prometheus metrics of one server (app.metrics.meters, app.metrics.gauges)."""
