"""``python -m minirt.world serve --payments PATH [--email PATH] [--booking PATH]``.

``--no-payments-lookup`` serves the Stripe-faithful payment provider (no lookup by key).

Serves each given provider on its own port of 127.0.0.1 until SIGTERM, and writes the URLs as
JSON (``{"payments": "http://127.0.0.1:PORT", ...}``) to ``--url-file`` once they listen (or
prints them on stdout without one). The ledgers are the given SQLite files: kill the process,
start it again on the same files, and every committed effect and saved key is still there.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .http import serve_forever


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minirt.world")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve providers over HTTP until SIGTERM")
    s.add_argument("--payments", help="ledger file of the payment provider")
    s.add_argument("--email", help="ledger file of the email provider")
    s.add_argument("--booking", help="ledger file of the booking provider")
    s.add_argument("--retention-for", type=float, default=None,
                   help="seconds the payment provider keeps idempotency keys (default 86400)")
    s.add_argument("--no-payments-lookup", action="store_true",
                   help="serve the Stripe-faithful payment provider (no lookup by key)")
    s.add_argument("--url-file", help="write the URLs here as JSON once listening")
    args = parser.parse_args(argv)
    if not (args.payments or args.email or args.booking):
        parser.error("give at least one of --payments, --email, --booking")
    url_file = args.url_file
    if url_file is None:
        url_file = str(Path(tempfile.mkdtemp(prefix="minirt-world-")) / "urls.json")
        print(f"URLs will be in {url_file}", flush=True)
    serve_forever(url_file, payments=args.payments, email=args.email, booking=args.booking,
                  retention_for=args.retention_for,
                  payments_lookup=not args.no_payments_lookup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
