"""One incompatibility between schema versions: where in the schema, what changed, and why it breaks readers."""

from dataclasses import asdict, dataclass

ROLES = {"backward": ("new", "old"), "forward": ("old", "new")}  # direction -> (reader, writer)


def compare_as_reader(old, new, direction: str, incompatibilities) -> list:
    """A reader/writer check in one direction: backward, the new schema reads what the old one wrote;
    forward, the old schema reads what the new one writes. `incompatibilities(reader, writer, reader_role,
    writer_role)` is the format's check."""
    reader_role, writer_role = ROLES[direction]
    reader, writer = (new, old) if direction == "backward" else (old, new)
    return incompatibilities(reader, writer, reader_role, writer_role)


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
