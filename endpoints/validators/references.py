"""An endpoint's `definitionGroups` references: which point at this registry's own definition groups."""
from __future__ import annotations

PREFIX = "#/definitionGroups/"


def definition_group_ids(attributes: dict, base_url: str | None) -> tuple[list[str], list[str]]:
    """(ids of local definition groups referenced, errors of malformed entries). A local reference is
    `#/definitionGroups/ID` or `<base_url>/definitionGroups/ID`; other URIs are other registries'."""
    refs = attributes.get("definitionGroups")
    if refs is None:
        return [], []
    if not isinstance(refs, list):
        return [], ["definitionGroups must be an array of URI-references"]
    ids, errors = [], []
    own = f"{base_url.rstrip('/')}/definitionGroups/" if base_url else None
    for index, ref in enumerate(refs):
        if not isinstance(ref, str) or not ref:
            errors.append(f"definitionGroups[{index}] must be a non-empty URI-reference")
            continue
        for prefix in (PREFIX, own):
            if prefix and ref.startswith(prefix):
                rest = ref[len(prefix):].split(":", 1)[0]
                if not rest or "/" in rest:
                    errors.append(f"definitionGroups[{index}]: {ref!r} does not name a definition group")
                else:
                    ids.append(rest)
                break
    return ids, errors
