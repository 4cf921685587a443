"""The worked example of docs/data-contracts.md runs (issue 41 item 5): its Python blocks, in order, in one namespace,
against a live server and a Kafka broker (Tansu, started by the harness), the example's `REGISTRY` and `BROKER`
replaced by theirs. The example's own asserts are the checks: a CEL condition refusing a payment in the producer, the
card encrypted with the local KMS and a DEK kept here, the JSONata migration's dry run, and a consumer of the next major
version reading the message through the migration and decrypting it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from confluent.dek_models import Dek, Kek

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

DOC = Path(__file__).resolve().parents[2] / "docs" / "data-contracts.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def example() -> str:
    """The Python blocks of the section "Worked example", joined."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Worked example\n", 1)[1].split("\n## ", 1)[0]
    blocks = BLOCK.findall(section)
    assert len(blocks) >= 5, "the worked example lost its blocks"
    return "\n".join(blocks)


def test_the_worked_example_runs(kafka, base_url, writer):
    code = example()
    registry = base_url.replace("http://", "http://carol:pw@")
    code, found = re.subn(r'^REGISTRY = "[^"]*"', f"REGISTRY = {registry!r}", code, flags=re.MULTILINE)
    assert found == 1
    code, found = re.subn(r'^BROKER = "[^"]*"', f"BROKER = {kafka.extra['bootstrap']!r}", code, flags=re.MULTILINE)
    assert found == 1
    namespace = {"__name__": "worked_example"}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - the doc's own example
    namespace.clear()  # its producer and admin client go before the broker does
    # what the example left in the registry: the producer's KEK (not shared) and its DEK for the subject
    assert Kek.objects.get().name == "payments-kek" and not Kek.objects.get().shared
    assert Dek.objects.get().subject == "payments-value"
