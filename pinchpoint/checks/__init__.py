"""What we look at: collectors and parsers, each reading through a `Source`."""
