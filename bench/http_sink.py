"""A local HTTP sink for the delivery benchmark, in a process of its own (as a real subscriber is): answers
every request 200 at once and appends `subject<TAB>unix time received` to OUTPUT for each event.

    python bench/http_sink.py PORT OUTPUT
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    port, output = int(sys.argv[1]), open(sys.argv[2], "a", buffering=1, encoding="utf-8")  # noqa: SIM115
    lock = threading.Lock()

    class Sink(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received = time.time()
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            with lock:
                output.write(f"{json.loads(body)['subject']}\t{received}\n")

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Sink).serve_forever()


if __name__ == "__main__":
    main()
