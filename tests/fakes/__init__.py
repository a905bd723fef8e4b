"""Local fake servers for the tests (127.0.0.1 only; no network, no credentials)."""
