"""Hand-written fakes for tests: a real OpenAI-compatible HTTP server on loopback."""
