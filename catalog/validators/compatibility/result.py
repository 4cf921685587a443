"""One incompatibility between schema versions: where in the schema, what changed, and why it breaks readers."""
from dataclasses import asdict, dataclass

ROLES = {"backward": ("new", "old"), "forward": ("old", "new")}  # direction -> (reader, writer)


@dataclass(frozen=True)
class Incompatibility:
    """`path` in the schema (`Order.fields.amount`), the `change` (`field 'amount' added without a default`)
    and the `reason` it breaks a reader (`a reader using the new schema cannot read data written without
    'amount'`)."""

    path: str
    change: str
    reason: str

    def as_dict(self) -> dict:
        return asdict(self)
