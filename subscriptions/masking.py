"""What every read shows of a subscription's secrets, and how a write takes the masked values back.

Anything a client may have put a secret in is write-only, as credentials are: in the sink, the password of its
user info (all of it when it has no password: often a token), every query part (`token=***`, a value-less
`?SECRET` as `***`) and the fragment; in `protocolsettings`, every value of a map (HTTP `headers`, MQTT 5
`userproperties`, AMQP `linkproperties`). Names listed in `REGISTRY_SUBSCRIPTION_SAFE_NAMES` (header, query
parameter and property names, case-insensitive) are shown as stored. Credentials (`password`, `token`,
`username`, `user`, an `Authorization` header) are never shown at all, whatever that setting says.

Writes: a masked value sent back (a read-modify-write, the admin's form) stands for the stored one; `***` where
nothing is stored to keep is refused, so that `***` never becomes a stored secret.
"""

from __future__ import annotations

from django.conf import settings

from registry.domain.errors import Problem

MASK = "***"
# names of the settings and headers that carry credentials: never shown, whatever REGISTRY_SUBSCRIPTION_SAFE_NAMES says
CREDENTIALS = {"password", "token", "username", "user", "authorization"}


def safe_names() -> set[str]:
    """Names whose values are shown (REGISTRY_SUBSCRIPTION_SAFE_NAMES), lower case, credentials excluded."""
    listed = getattr(settings, "REGISTRY_SUBSCRIPTION_SAFE_NAMES", ()) or ()
    if isinstance(listed, str):
        listed = listed.split(",")
    return {name.strip().lower() for name in listed if name.strip()} - CREDENTIALS


def _shown_query(query: str, safe: set[str]) -> str:
    parts = []
    for part in query.split("&"):
        name, equals, _value = part.partition("=")
        if not part or name.lower() in safe:
            parts.append(part)
        elif equals:
            parts.append(f"{name}={MASK}")
        else:
            parts.append(MASK)  # a value-less part is often the secret itself (`?s3cret`)
    return "&".join(parts)


def shown_sink(sink: str) -> str:
    """The sink as reads show it: user-info password, query parts and fragment masked. Split by hand, not by a
    URL parser, so that whatever is stored (even a sink a parser would refuse) is masked the same way."""
    if not isinstance(sink, str):
        return sink
    safe = safe_names()
    rest, hash_sign, _fragment = sink.partition("#")
    scheme, separator, tail = rest.partition("://")
    if not separator:
        scheme, tail = "", rest
    end = min((i for i in (tail.find("/"), tail.find("?")) if i >= 0), default=len(tail))
    authority, after = tail[:end], tail[end:]
    if "@" in authority:
        userinfo, _, hostport = authority.rpartition("@")
        # user:password keeps the user's name; a user info without a password is often a token: all hidden
        authority = f"{userinfo.split(':', 1)[0]}:{MASK}@{hostport}" if ":" in userinfo else f"{MASK}@{hostport}"
    path, question, query = after.partition("?")
    shown = (f"{scheme}://" if separator else "") + authority + path
    if question:
        shown += "?" + _shown_query(query, safe)
    if hash_sign:
        shown += "#" + MASK
    return shown


def shown_settings(protocolsettings: dict) -> dict:
    """The protocol settings as reads show them: no credentials; every value of a map masked unless its name is
    safe to show (an HTTP header named as a credential is left out, as the credential settings are)."""
    safe = safe_names()
    out = {}
    for key, value in (protocolsettings or {}).items():
        if key.lower() in CREDENTIALS:
            continue
        if isinstance(value, dict):
            value = {
                name: (item if name.lower() in safe else MASK)
                for name, item in value.items()
                if name.lower() not in CREDENTIALS
            }
        out[key] = value
    return out


def audited_settings(protocolsettings: dict) -> dict:
    """The protocol settings as the audit trail shows them (registry/store/audit.py): as reads show them (`shown_settings`),
    but with each credential named and masked, so that a changed credential is seen to change, its value not."""
    shown = shown_settings(protocolsettings)
    for key, value in (protocolsettings or {}).items():
        if key.lower() in CREDENTIALS:
            shown[key] = MASK
        elif isinstance(value, dict) and isinstance(shown.get(key), dict):
            shown[key].update({name: MASK for name in value if name.lower() in CREDENTIALS})
    return shown


def _stored_value(stored: dict, name: str):
    """The stored value of `name` in a map, matching its exact spelling first, then case-insensitively."""
    if name in stored:
        return stored[name]
    return next((value for key, value in stored.items() if key.lower() == name.lower()), None)


def with_masked_values_kept(data: dict, stored_sink: str | None, stored_settings: dict | None) -> dict:
    """The subscription body with every masked value sent back replaced by the stored one; Problem (400) for a
    masked value with nothing stored to keep."""
    out = dict(data)
    sink = data.get("sink")
    if isinstance(sink, str) and MASK in sink:
        if stored_sink is not None and sink == shown_sink(stored_sink):
            out["sink"] = stored_sink
        else:
            raise Problem(
                "invalid-attribute",
                f"sink: {MASK} stands for a stored secret, and this sink is not the stored one as shown: send the "
                "sink in full (or exactly as read, to keep it)",
            )
    protocolsettings = data.get("protocolsettings")
    if isinstance(protocolsettings, dict):
        kept_settings = dict(protocolsettings)
        for key, value in protocolsettings.items():
            if not isinstance(value, dict):
                continue
            stored_map = (stored_settings or {}).get(key)
            stored_map = stored_map if isinstance(stored_map, dict) else {}
            kept = {}
            for name, item in value.items():
                if item == MASK:
                    stored_item = _stored_value(stored_map, name)
                    if stored_item is None:
                        raise Problem(
                            "invalid-attribute",
                            f"protocolsettings.{key}.{name}: {MASK} stands for a stored value, and none is stored",
                        )
                    item = stored_item
                kept[name] = item
            kept_settings[key] = kept
        out["protocolsettings"] = kept_settings
    return out
