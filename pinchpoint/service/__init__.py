"""How pinchpoint runs: sweeps, schedules, the report store, notifications, metrics."""
