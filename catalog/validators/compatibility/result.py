"""One incompatibility: where in the schema, what changed, and why it breaks readers."""
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Incompatibility:
    path: str
    change: str
    reason: str

    def as_dict(self) -> dict:
        return asdict(self)
