"""The README's shell blocks, as the README test runs them (tests/readme/test_readme_commands.py).

Every fenced block opened with ```sh is a block of commands. An HTML comment on the line just above its fence
(invisible once rendered) tells the test what it needs:

- `<!-- readme-test: skip: REASON -->`: not run (`make test` would run the suite inside the suite; a remote
  cluster by name); the reason is required;
- `<!-- readme-test: needs rabbitmq -->`: run once the harness started a RabbitMQ node, its port put in place
  of 5672; `needs xrcg`: once the harness made `.venv-xrcg`; `needs java`: only where Java is installed.

Ports written in the README are replaced by the ones the test uses (8000: the server `make run` started;
5672: the RabbitMQ node; 9092, 7077 and 9999: free ports for the Kafka broker, the Spark master and the webhook
receiver a block starts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^```sh\s*$")
TAG = re.compile(r"^<!--\s*readme-test:\s*(.*?)\s*-->\s*$")
NEEDS = {"rabbitmq", "xrcg", "java"}
PORTS = ("8000", "5672", "9092", "7077", "9999")
HOST_PORT = re.compile(r"\b(127\.0\.0\.1|localhost):(" + "|".join(PORTS) + r")\b")
PORT_FLAG = re.compile(r"(--port\s+)(" + "|".join(PORTS) + r")\b")


@dataclass
class Block:
    line: int  # of the opening fence, 1-based
    text: str
    skip: str | None = None
    needs: set[str] = field(default_factory=set)

    def with_ports(self, ports: dict[str, int]) -> str:
        """The block with the README's ports replaced by `ports` (README port -> the one to use)."""
        text = HOST_PORT.sub(lambda m: f"{m.group(1)}:{ports.get(m.group(2), m.group(2))}", self.text)
        return PORT_FLAG.sub(lambda m: f"{m.group(1)}{ports.get(m.group(2), m.group(2))}", text)

    def allowed_statuses(self) -> set[int]:
        """The 4xx statuses the block's own text names (`refused with 409`): answers it shows on purpose."""
        return {int(code) for code in re.findall(r"\b(4\d\d)\b", self.text)}


def readme_blocks(path: Path) -> list[Block]:
    """Every ```sh block of the README at `path`; ValueError for a malformed tag or an unclosed block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        if not FENCE.match(lines[index]):
            index += 1
            continue
        start = index
        end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == "```"), None)
        if end is None:
            raise ValueError(f"README.md:{start + 1}: the ```sh block is not closed")
        block = Block(line=start + 1, text="\n".join(lines[start + 1 : end]) + "\n")
        tag = TAG.match(lines[start - 1]) if start else None
        if tag:
            words = tag.group(1)
            if words.startswith("skip:"):
                block.skip = words[len("skip:") :].strip()
                if not block.skip:
                    raise ValueError(f"README.md:{start}: a skipped block says why")
            elif words.startswith("needs "):
                block.needs = set(words[len("needs ") :].replace(",", " ").split())
                unknown = block.needs - NEEDS
                if unknown:
                    raise ValueError(f"README.md:{start}: unknown needs {sorted(unknown)} (known: {sorted(NEEDS)})")
            else:
                raise ValueError(f"README.md:{start}: readme-test tag {words!r} is neither 'skip: ...' nor 'needs ...'")
        blocks.append(block)
        index = end + 1
    return blocks
