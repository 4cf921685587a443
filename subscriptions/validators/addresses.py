"""Is an IP address globally reachable? Read from IANA's special-purpose address registries, shipped as data
(`iana/`, with their source and date), not from the interpreter's table (Python 3.11's `is_global` predates
entries such as `192.0.0.8/32`, the IPv4 dummy address).

An address is refused unless the most specific registry entry holding it says `Globally Reachable: True`
(`192.0.0.9/32` is reachable inside the unreachable `192.0.0.0/24`); `N/A` (Teredo, 6to4) and terminated
entries count as unreachable. Outside the registries: multicast is refused, and so is IPv6 outside
`2000::/3` (reserved by the IETF in IANA's IPv6 Address Space registry) unless an entry says otherwise;
`64:ff9b::/96` (NAT64) is reachable only when the IPv4 address it carries is. Written by hand: no library
here reads IANA's registries (`ipaddress` hard-codes an older copy).
"""

from __future__ import annotations

import csv
import ipaddress
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).with_name("iana")
FILES = {4: "iana-ipv4-special-registry-1.csv", 6: "iana-ipv6-special-registry-1.csv"}
GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_FOOTNOTE = re.compile(r"\s*\[\d+\]")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class Entry:
    """One block of a registry: its network, its name and RFC, and whether it is globally reachable."""

    network: ipaddress.IPv4Network | ipaddress.IPv6Network
    name: str
    rfc: str
    reachable: bool


def _clean(cell: str) -> str:
    return " ".join(_FOOTNOTE.sub("", cell or "").split())


@cache
def registry(version: int) -> tuple[Entry, ...]:
    """The entries of the IPv4 or IPv6 registry, most specific (longest prefix) first."""
    entries = []
    with (DATA / FILES[version]).open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            reachable = _clean(row["Globally Reachable"]) == "True" and _clean(row["Termination Date"]) == "N/A"
            for block in _clean(row["Address Block"]).split(","):
                entries.append(
                    Entry(ipaddress.ip_network(block.strip()), _clean(row["Name"]), _clean(row["RFC"]), reachable)
                )
    if not entries:
        raise RuntimeError(f"{DATA / FILES[version]} holds no entry")
    return tuple(sorted(entries, key=lambda entry: -entry.network.prefixlen))


def entry_for(address: IPAddress) -> Entry | None:
    """The most specific registry entry holding `address`, or None."""
    return next((entry for entry in registry(address.version) if address in entry.network), None)


def unreachable_reason(address: IPAddress) -> str | None:
    """None when `address` is globally reachable, else why not (naming the registry entry)."""
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
        address = ipaddress.IPv6Address(address.compressed.split("%")[0])
    if address.is_multicast:
        return f"{address} is a multicast address"
    entry = entry_for(address)
    if entry is not None and not entry.reachable:
        return (
            f"{address} is in {entry.network} ({entry.name}, {entry.rfc}), which IANA's special-purpose registry "
            "does not list as globally reachable"
        )
    if isinstance(address, ipaddress.IPv6Address):
        if entry is None and address not in GLOBAL_UNICAST_V6:
            return f"{address} is outside 2000::/3, the only IPv6 space allocated for global unicast"
        if address in NAT64:
            inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
            reason = unreachable_reason(inner)
            if reason:
                return f"{address} translates to {inner}: {reason}"
    return None
