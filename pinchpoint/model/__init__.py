"""Typed facts every layer of pinchpoint shares: inventory, problems met while collecting."""
