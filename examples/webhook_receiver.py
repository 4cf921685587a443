"""A minimal webhook receiver for the registry's HTTP subscriptions (the README's example), with the standard library
only: it answers the CloudEvents webhook abuse-protection handshake and prints each event it receives.

The handshake: before a subscription becomes active, the registry sends `OPTIONS` with
`WebHook-Request-Origin: <the registry's host>`; a receiver that accepts events from it answers 2xx with
`WebHook-Allowed-Origin: <that host>` (or `*`). A receiver that answers otherwise leaves the subscription `failed`.

    python examples/webhook_receiver.py --port 9999 [--allow registry.example.com]
"""

from __future__ import annotations

import argparse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def handler(allowed: str | None) -> type[BaseHTTPRequestHandler]:
    class Receiver(BaseHTTPRequestHandler):
        def do_OPTIONS(self):  # noqa: N802 - the handshake
            origin = self.headers.get("WebHook-Request-Origin", "")
            if allowed and origin != allowed:
                self.send_response(403)  # not the registry this receiver expects: no WebHook-Allowed-Origin
            else:
                self.send_response(200)
                self.send_header("WebHook-Allowed-Origin", origin or "*")
                self.send_header("WebHook-Allowed-Rate", "120")  # requests a minute it accepts (optional)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self):  # noqa: N802 - an event (structured mode: the CloudEvent as JSON)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            print(body.decode("utf-8", "replace"), flush=True)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    return Receiver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=9999)
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--allow", help="the only registry host whose handshake is accepted (default: any)")
    args = parser.parse_args()
    ThreadingHTTPServer((args.bind, args.port), handler(args.allow)).serve_forever()


if __name__ == "__main__":
    main()
