"""The whole-registry answers rendered in process (issue 40 part B): the 0.5 JSON export (`exp05`), 0.5
`GET /?inline` (`inl05`) and the 1.0 `/registry/export` (`exp10`), each once through the code their views call, with
no kept group parts, on the database of DATABASE_URL (e.g. the one `bench/scale.py --hold` prints). Prints each
answer's CPU time (this process's), wall time (PostgreSQL's part included), versions per second, size and sha256
(the same bytes before and after a change), the process's peak memory and the load average. `--profile` prints
cProfile's lists too. Run it for two checkouts in turn to compare them side by side. Asserts nothing.

    DATABASE_URL=postgres://... .venv/bin/python bench/whole_render.py ../baseline exp05 inl05 exp10
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import os
import pstats
import resource
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, nargs="?", default=Path(__file__).resolve().parents[1])
    parser.add_argument("answers", nargs="*", default=["exp05", "inl05", "exp10"])
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout.resolve()))
    os.chdir(args.checkout)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from registry.access.read_scope import EVERYTHING
    from registry.bindings.v05.root import stream_inline
    from registry.bindings.v10.reads import export_chunks
    from registry.documents.exports import stream_json_document
    from registry.http.rendered_groups import group_parts, rendered_groups
    from registry.models import Version

    base = "http://testserver"
    answers = {
        "exp05": lambda: stream_json_document(EVERYTHING, group_parts),
        "inl05": lambda: stream_inline(base, EVERYTHING),
        "exp10": lambda: export_chunks(base + "/registry", group_parts, EVERYTHING),
    }
    versions = Version.objects.count()
    for name in args.answers:
        rendered_groups.clear()
        digest, size = hashlib.sha256(), 0
        profile = cProfile.Profile() if args.profile else None
        cpu, wall = time.process_time(), time.perf_counter()
        if profile:
            profile.enable()
        for chunk in answers[name]():
            data = chunk.encode() if isinstance(chunk, str) else chunk
            digest.update(data)
            size += len(data)
        if profile:
            profile.disable()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(
            f"{name}: CPU {cpu:.2f} s, wall {wall:.2f} s, {versions / wall:.0f} versions/s, {size} bytes, "
            f"sha256 {digest.hexdigest()[:16]}, peak {peak} MiB, load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        if profile:
            pstats.Stats(profile).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
