"""The endpoint validation hook: attribute and protocol checks, and `definitionGroups` references that must resolve."""

from registry.domain.validation import GroupCheck, Invalid

from .validators.attributes import validate_endpoint
from .validators.references import definition_group_ids


def check_endpoint(check: GroupCheck) -> None:
    errors = validate_endpoint(check.attributes)
    ids, ref_errors = definition_group_ids(check.attributes, check.base_url)
    errors += ref_errors
    # a reference the endpoint already holds is kept even when its group was deleted with ?force=true (as a
    # definition keeps its schemaurl); an import accepts any (its report lists them as warnings)
    held = set(definition_group_ids(check.stored_attributes, check.base_url)[0]) if check.stored_attributes else set()
    for gid in ids:
        if gid in held or check.dangling_references:
            continue
        if not check.group_exists("definitionGroups", gid):
            errors.append(f"definitionGroups: #/definitionGroups/{gid} does not resolve to a definition group")
    if errors:
        raise Invalid(errors)
