"""How pinchpoint is reached: the REST API under /v1, health probes, metrics and the web view."""
