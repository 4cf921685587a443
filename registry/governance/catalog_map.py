"""A map of the catalog: which entities point at which, drawn on the server as SVG by Graphviz's `dot`.

- Nodes are groups and resources. A reference to a version is drawn to its resource, with the version id (and
  a `:Name` suffix) on the edge. Each group is a cluster holding its group node and its resources, so a map
  reads group by group.
- Edges are the references apps register (`registry.domain.references`): an endpoint -> its definition groups, a
  definition -> its schema version. A reference to an entity that does not exist is drawn to a red "missing"
  node.
- Around a root (`/G/g`, `/G/g/R/r` or a version path): the root's entities, everything they lead to
  (references, and a group's resources) and everything that leads to them (referrers, and a resource's
  group), read from the database a step at a time (`CatalogGraph._neighbourhood`): what it reads depends on the
  neighbourhood, not on the registry's size. Without a root: the whole registry, refused above
  `REGISTRY_MAP_MAX_RESOURCES` resources (`check_whole_map`: a problem naming maps of groups to draw instead). Above `MAX_DETAILED_RESOURCES` resources, one node per group
  with the references between groups counted, inside one cluster per group type: never one unreadable drawing
  of every resource. Above the node budget (`REGISTRY_MAP_MAX_NODES` groups, or three times as many references
  between groups), one node per group type with its counts: Graphviz lays out hundreds of nodes in seconds,
  thousands in minutes (docs/performance.md).
- `dot` runs with a timeout (`REGISTRY_MAP_SECONDS`): a layout that takes longer is killed and the request answers
  503 naming the setting, as it does when `dot` fails or is missing (`MapUnavailable`), never a 500.
- Apps describe their nodes (`register_map_describer(group_plural, resource_plural, fn)`, registry/governance/map_facts.py):
  `fn(attributes)` returns `NodeFacts(lines, deprecated)`, shown on the node (usage, protocol, format); the engine
  names no attribute. A group's attributes are its common and extension attributes; a resource's are its own extension
  attributes overlaid with its latest version's.
- Every node links to `link(path, group_pk, resource_pk)`: the admin page of the entity
  (`references.admin_url_of`, without a query per node).

Only the layout is left to a library (Graphviz, through the `graphviz` package); which entities to draw and how
to label them is the registry's own.
"""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import graphviz
from django.conf import settings

from ..access.read_scope import EVERYTHING, ReadScope
from ..domain import references
from ..domain.errors import Problem
from ..domain.model import registry_model
from ..store import estimates
from .map_facts import NodeFacts, describers

MAX_DETAILED_RESOURCES = 60
DEFAULT_MAX_NODES = 300  # = REGISTRY_MAP_MAX_NODES's default
DEFAULT_SECONDS = 10.0  # = REGISTRY_MAP_SECONDS's default
DEFAULT_MAX_RESOURCES = 5_000  # = REGISTRY_MAP_MAX_RESOURCES's default
ALTERNATIVES = 5  # groups of each type named by the refusal of the whole registry's map
COMMENT = re.compile(rb"<!--.*?-->\n?", re.S)
FONT = "Helvetica"
# fill and border per group type, in the model's order (the engine knows no type by name)
PALETTE = [
    ("#fde9d9", "#d9822b"),
    ("#e3edf9", "#3d74b8"),
    ("#e4f3e1", "#4c9a44"),
    ("#efe6f6", "#7d55a8"),
    ("#f3f0dc", "#a08a1c"),
]


Link = Callable[[str, int, int | None], str | None]  # (path, group pk, resource pk) -> URL


class MapUnavailable(Exception):
    """Graphviz's `dot` is not installed on this server, failed, or ran past REGISTRY_MAP_SECONDS; `budget` names
    the setting when it is the timeout."""

    def __init__(self, message: str, budget: str | None = None):
        super().__init__(message)
        self.budget = budget


@dataclass
class Node:
    path: str
    group: str  # the path of the group whose cluster holds the node
    title: str  # "schema Orders.Created"
    facts: NodeFacts = NodeFacts()
    is_group: bool = False
    missing: bool = False
    resources: int = 0  # a group node: how many resources it holds


@dataclass
class Edge:
    labels: set[str] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)
    count: int = 0


def _text(value) -> str:
    """User data on a node: one short line, no DOT escape sequences."""
    text = str(value).replace("\\", "/").replace("\n", " ")
    return text if len(text) <= 48 else text[:47] + "…"


def _facts(key: tuple[str, str | None], attributes: dict) -> NodeFacts:
    fn = describers.get(key)
    if fn is None:
        return NodeFacts()
    try:
        facts = fn(attributes) or NodeFacts()
    except (TypeError, ValueError, AttributeError, KeyError):
        return NodeFacts()  # an odd stored value: no facts rather than no map
    lines = dict.fromkeys(_text(line) for line in facts.lines if line)  # once each (a protocol may be the format)
    return NodeFacts(tuple(lines), facts.deprecated)


def _group_attributes(group) -> dict:
    return {
        "name": group.name,
        "description": group.description,
        "tags": group.tags,
        "docs": group.docs,
        **(group.extensions or {}),
    }


def _canonical(path: str) -> str:
    return path.lower()


def _node_key(path: str) -> str:
    """The canonical path of the node that draws the entity at `path` (a version is drawn by its resource)."""
    segments = [s for s in path.split("/") if s]
    return _canonical("/" + "/".join(segments[:4] if len(segments) >= 4 else segments[:2]))


class CatalogGraph:
    """The groups and resources of the registered types that `scope` reads, and the references between them (none
    from or to a group it does not read: no node, no "missing" node either): every one of them, or with `root` only
    those connected to it (`around`), read from the database by following the references from and to it a step at
    a time (`references.scan(into=..., held_by=...)`): a group's map reads its neighbourhood, not the registry."""

    def __init__(self, base_urls: list[str], scope: ReadScope = EVERYTHING, root: str | None = None):
        self.base_urls, self.scope = base_urls, scope
        self.nodes: dict[str, Node] = {}
        self.by_key: dict[str, str] = {}  # lower-cased path -> path as stored (ids are unique whatever the case)
        self.pks: dict[str, tuple[int, int | None]] = {}  # node path -> (group pk, resource pk)
        self.members: dict[str, list[str]] = defaultdict(list)  # group path -> its resource paths
        self.edges: dict[tuple[str, str], Edge] = defaultdict(Edge)
        self.shown: set[str] = set()
        self.missing: dict[str, set[str]] = defaultdict(set)  # node key -> the "missing" nodes' paths
        self.types = {gt.plural: gt for gt in registry_model.group_types}
        if root is None:
            self._load(None)
            self._connect(references.scan(base_urls))
            self.shown = set(self.nodes)
        else:
            self._neighbourhood(root)

    def _type(self, group_plural: str, resource_plural: str | None = None) -> str:
        """A type's plural as stored, from its canonical (lower-case) spelling."""
        gt = next((g for g in self.types.values() if g.plural.lower() == group_plural), None)
        if gt is None:
            return group_plural
        if resource_plural is None:
            return gt.plural
        return next((r.plural for r in gt.resources if r.plural.lower() == resource_plural), resource_plural)

    def _typed(self, key: str) -> str:
        """A canonical path with its types spelled as stored (the ids stay lower-case: compared so)."""
        seg = [s for s in key.split("/") if s]
        seg[0] = self._type(seg[0])
        if len(seg) >= 4:
            seg[2] = self._type(seg[0].lower(), seg[2])
        return "/" + "/".join(seg)

    # --- reading the entities --------------------------------------------------------------------------------

    def _load(self, keys: set[str] | None) -> None:
        """The group and resource nodes (`keys`: their canonical paths; None: all of them)."""
        # imported here: apps register their describers from modules that the Spark import's executors load
        # without Django's app registry, where importing the models fails
        from ..models import Group, Resource

        groups = self.scope.filter(Group.objects.filter(group_type__in=self.types)).order_by("group_type", "gid")
        resources = (
            self.scope.filter(Resource.objects.filter(group__group_type__in=self.types), "group__")
            .select_related("group", "latest")
            .only("rid", "resource_type", "extensions", "group__gid", "group__group_type", "latest__extensions")
            .order_by("group__gid", "resource_type", "rid")
        )
        if keys is not None:
            group_paths = {"/".join(key.split("/")[:3]) for key in keys}  # a resource's group too
            group_pks, _ = references.entity_pks(group_paths)
            _, resource_pks = references.entity_pks(key for key in keys if key.count("/") >= 4)
            groups = groups.filter(pk__in=group_pks)
            resources = resources.filter(pk__in=resource_pks)
        for group in groups:
            gt = self.types[group.group_type]
            node = Node(
                group.path,
                group.path,
                f"{gt.singular} {group.gid}",
                _facts((gt.plural, None), _group_attributes(group)),
                is_group=True,
            )
            self._add(node, (group.pk, None))
        for resource in resources:
            rt = self.types[resource.group.group_type].resources_by_plural.get(resource.resource_type)
            group_path = resource.group.path
            if rt is None or group_path not in self.nodes:
                continue
            attributes = {
                **(resource.extensions or {}),
                **((resource.latest.extensions or {}) if resource.latest else {}),
            }
            node = Node(
                resource.path,
                group_path,
                f"{rt.singular} {resource.rid}",
                _facts((resource.group.group_type, rt.plural), attributes),
            )
            self._add(node, (self.pks[group_path][0], resource.pk))
            self.members[group_path].append(resource.path)
            self.nodes[group_path].resources += 1
        if keys is not None:  # every resource of the groups drawn is counted, drawn or not
            from django.db.models import Count

            pks = {self.pks[path][0]: path for path, node in self.nodes.items() if node.is_group}
            counts = Resource.objects.filter(group_id__in=pks).values_list("group_id").annotate(n=Count("pk"))
            for group_pk, count in counts.order_by():
                self.nodes[pks[group_pk]].resources = count

    def _member_keys(self, group_keys: set[str]) -> set[str]:
        """The canonical paths of the resources of the groups `group_keys` (that `scope` reads)."""
        # here: the Spark import's executors load this module without Django's app registry, where the models fail
        from ..models import Resource

        if not group_keys:
            return set()
        group_pks, _ = references.entity_pks(group_keys)
        found = (
            self.scope.filter(Resource.objects.filter(group_id__in=group_pks), "group__")
            .select_related("group")
            .only("rid", "resource_type", "group__gid", "group__group_type")
        )
        return {_canonical(resource.path) for resource in found}

    def _neighbourhood(self, root: str) -> None:
        """`around(root)` read from the database: down from the root (what it and its resources lead to), up (what
        leads to them), a step at a time; then the entities reached and the references between them."""
        start = _node_key(root)
        self._load({start})
        if start not in self.by_key:
            raise Problem("not-found", f"{root} does not exist, so it has no map")
        seeds = {start} | (self._member_keys({start}) if start.count("/") == 2 else set())
        shown = set(seeds)
        frontier, seen = set(seeds), set(seeds)
        while frontier:  # down: the references the frontier holds, a group's resources
            found = set()
            for ref in self._references(held_by=frontier):
                if _node_key(ref.referrer) in frontier:
                    found.add(_node_key(ref.target))
            found |= self._member_keys({key for key in found if key.count("/") == 2})
            frontier = found - seen
            seen |= frontier
        shown |= seen
        frontier, seen = set(seeds), set(seeds)
        while frontier:  # up: what points at the frontier, a resource's group
            found = {key.rsplit("/", 2)[0] for key in frontier if key.count("/") == 4}
            for ref in self._references(into=frontier):
                if _node_key(ref.target) in frontier:
                    found.add(_node_key(ref.referrer))
            frontier = found - seen
            seen |= frontier
        shown |= seen
        self._load(shown)
        self._connect(self._references(held_by=shown), keep=shown)
        self.shown = {self.by_key[key] for key in shown if key in self.by_key}
        self.shown |= {path for key in shown for path in self.missing.get(key, ())}

    def _references(self, *, into: set[str] | None = None, held_by: set[str] | None = None):
        paths = {self.by_key.get(key) or self._typed(key) for key in (into or held_by or ())}
        if not paths:
            return []
        if into is not None:
            return references.scan(self.base_urls, into=sorted(paths))
        return references.scan(self.base_urls, held_by=sorted(paths))

    def _connect(self, found: list, keep: set[str] | None = None) -> None:
        """The edges of the references `found` (those between `keep`'s nodes when given)."""
        for ref in found:
            if self.scope.hides(ref.referrer) or self.scope.hides(ref.target):
                continue
            if keep is not None and not (_node_key(ref.referrer) in keep and _node_key(ref.target) in keep):
                continue
            source = self.node_of(ref.referrer)[0]
            target, version = self.node_of(ref.target)
            if source is None:
                continue
            if target is None:
                target = ref.target
                self.nodes.setdefault(target, Node(target, target, f"missing {target}", missing=True))
                self.missing[_node_key(target)].add(target)
            edge = self.edges[(source, target)]
            edge.count += 1
            edge.attributes.add(ref.attribute)
            # a URL's `:Name` suffix (a reference in an app's own terms, a Confluent one, has none)
            url = references.resolve(ref.written, self.base_urls) is not None
            suffix = ref.written.rsplit("/", 1)[-1].partition(":")[2] if url else ""
            label = ":".join(part for part in (f"v{version}" if version else "", suffix) if part)
            if label:
                edge.labels.add(_text(label))

    def _add(self, node: Node, pks: tuple[int, int | None]) -> None:
        self.nodes[node.path] = node
        self.by_key[_canonical(node.path)] = node.path
        self.pks[node.path] = pks

    def node_of(self, path: str) -> tuple[str | None, str | None]:
        """The node that draws the entity at `path` (a version is drawn by its resource) and the version id."""
        segments = [s for s in path.split("/") if s]
        version = segments[5] if len(segments) >= 6 else None
        return self.by_key.get(_node_key(path)), version


def _node_attrs(node: Node, url: str | None, fill: str, border: str, *, extra: Sequence[str] = ()) -> dict:
    lines = [node.title, *node.facts.lines, *extra]
    if node.facts.deprecated:
        lines.append("deprecated")
    attrs = {
        "label": "\\n".join(_text(line) if i else line for i, line in enumerate(lines)),
        "tooltip": node.path,
        "fillcolor": fill,
        "color": border,
        "style": "rounded,filled" + (",dashed" if node.facts.deprecated else ""),
        "penwidth": "1.6" if node.is_group else "1",
    }
    if node.facts.deprecated:
        attrs["fontcolor"] = "#777777"
    if node.missing:
        attrs.update(fillcolor="#fbe3e3", color="#c0392b", style="rounded,filled,dashed")
    if url:
        attrs.update(URL=url, target="_top")
    return attrs


def _edge_attrs(edge: Edge, *, counted: bool = False) -> dict:
    label = f"{edge.count} references" if counted and edge.count > 1 else ", ".join(sorted(edge.labels)[:3])
    return {"label": label, "tooltip": ", ".join(sorted(edge.attributes))}


def _colors(path: str) -> tuple[str, str]:
    plural = path.split("/")[1] if path.count("/") >= 2 else ""
    order = [gt.plural for gt in registry_model.group_types]
    return PALETTE[order.index(plural) % len(PALETTE)] if plural in order else ("#ffffff", "#999999")


def _digraph(title: str) -> graphviz.Digraph:
    return graphviz.Digraph(
        "catalog",
        format="svg",
        graph_attr={
            "rankdir": "LR",
            "fontname": FONT,
            "fontsize": "12",
            "nodesep": "0.2",
            "ranksep": "0.7",
            "label": title.replace("\\", "/"),
            "labelloc": "t",
            "tooltip": title.replace("\\", "/"),
        },
        node_attr={"shape": "box", "fontname": FONT, "fontsize": "10", "margin": "0.12,0.05"},
        edge_attr={"fontname": FONT, "fontsize": "9", "color": "#666666", "arrowsize": "0.7"},
    )


def _detailed(graph: CatalogGraph, shown: set[str], link: Link, title: str):
    dot = _digraph(title)
    clusters: dict[str, list[str]] = defaultdict(list)
    for path in shown:
        node = graph.nodes[path]
        if node.missing:
            dot.node(path, **_node_attrs(node, None, "#ffffff", "#999999"))
        else:
            clusters[node.group].append(path)
    for index, group_path in enumerate(sorted(clusters)):
        fill, border = _colors(group_path)
        group = graph.nodes[group_path]
        drawn = clusters[group_path]
        if group_path not in drawn:
            drawn.append(group_path)  # a resource is drawn in its group's cluster, under its group's node
        hidden = group.resources - sum(1 for p in drawn if not graph.nodes[p].is_group)
        with dot.subgraph(name=f"cluster_{index}") as cluster:
            cluster.attr(
                label=group_path + (f"  (+{hidden} more not connected)" if hidden > 0 else ""),
                style="rounded",
                color=border,
                fontcolor=border,
                tooltip=group_path,
            )
            for path in sorted(drawn, key=lambda p: (not graph.nodes[p].is_group, p)):
                node = graph.nodes[path]
                cluster.node(
                    path,
                    **_node_attrs(node, link(path, *graph.pks[path]), fill if node.is_group else "#ffffff", border),
                )
                if not node.is_group:  # unseen: places a group's node before its resources
                    cluster.edge(group_path, path, style="invis")
    for (source, target), edge in sorted(graph.edges.items()):
        if source in shown and target in shown:
            dot.edge(source, target, **_edge_attrs(edge))
    return dot


def _by_group(graph: CatalogGraph, shown: set[str], link: Link, title: str):
    """One node per group inside one cluster per group type; references between groups counted."""
    dot = _digraph(title)
    groups = sorted({graph.nodes[p].group for p in shown if not graph.nodes[p].missing})
    by_type: dict[str, list[str]] = defaultdict(list)
    for path in groups:
        by_type[path.split("/")[1]].append(path)
    for index, gt in enumerate(registry_model.group_types):
        members = by_type.get(gt.plural)
        if not members:
            continue
        fill, border = _colors(f"/{gt.plural}/x")
        with dot.subgraph(name=f"cluster_{index}") as cluster:
            cluster.attr(label=f"{gt.plural} ({len(members)})", style="rounded", color=border, fontcolor=border)
            for path in members:
                node = graph.nodes[path]
                extra = (
                    [f"{node.resources} {'resource' if node.resources == 1 else 'resources'}"] if node.resources else []
                )
                cluster.node(path, **_node_attrs(node, link(path, *graph.pks[path]), fill, border, extra=extra))
    for path in sorted(p for p in shown if graph.nodes[p].missing):
        dot.node(path, **_node_attrs(graph.nodes[path], None, "#ffffff", "#999999"))
    between: dict[tuple[str, str], Edge] = defaultdict(Edge)
    for (source, target), edge in graph.edges.items():
        if source in shown and target in shown:
            key = (graph.nodes[source].group, graph.nodes[target].group)
            if key[0] != key[1]:
                between[key].count += edge.count
                between[key].attributes |= edge.attributes
    for (source, target), edge in sorted(between.items()):
        dot.edge(source, target, **_edge_attrs(edge, counted=True))
    return dot


def _by_type(graph: CatalogGraph, shown: set[str], link: Link, title: str):
    """One node per group type (its groups and resources counted), references between types counted: the map of a
    registry too large for a node per group."""
    dot = _digraph(title + " (by group type: too many groups for a box each; draw ?root=PATH for detail)")
    groups: dict[str, int] = defaultdict(int)
    resources: dict[str, int] = defaultdict(int)
    for path in shown:
        node = graph.nodes[path]
        kind = path.split("/")[1] if not node.missing else "missing"
        if node.is_group:
            groups[kind] += 1
        elif not node.missing:
            resources[kind] += 1
        else:
            groups["missing"] += 1
    for gt in registry_model.group_types:
        if gt.plural not in groups:
            continue
        fill, border = _colors(f"/{gt.plural}/x")
        lines = f"{gt.plural}\\n{_count(groups[gt.plural], 'group')}, {_count(resources[gt.plural], 'resource')}"
        dot.node(gt.plural, label=lines, fillcolor=fill, color=border, style="rounded,filled", tooltip=gt.plural)
    if groups.get("missing"):
        dot.node("missing", label=f"missing\\n{groups['missing']} references to nothing", color="#c0392b")
    between: dict[tuple[str, str], Edge] = defaultdict(Edge)
    for (source, target), edge in graph.edges.items():
        if source in shown and target in shown:
            source_kind, target_kind = (
                "missing" if graph.nodes[p].missing else p.split("/")[1] for p in (source, target)
            )
            kinds = (source_kind, target_kind)
            between[kinds].count += edge.count
            between[kinds].attributes |= edge.attributes
    for (source, target), edge in sorted(between.items()):
        dot.edge(source, target, **_edge_attrs(edge, counted=True))
    return dot


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _group_drawing_size(graph: CatalogGraph, shown: set[str]) -> tuple[int, int]:
    """(nodes, edges) of the drawing by group."""
    groups = {graph.nodes[p].group for p in shown}
    pairs = {(graph.nodes[s].group, graph.nodes[t].group) for (s, t) in graph.edges if s in shown and t in shown}
    return len(groups), sum(1 for a, b in pairs if a != b)


def _setting(name: str, default):
    return type(default)(getattr(settings, name, default)) if settings.configured else default


def render_svg(source: str, seconds: float) -> bytes:
    """`dot -Tsvg` of the DOT text, killed after `seconds` (the graphviz package's pipe takes no timeout)."""
    try:
        done = subprocess.run(
            ["dot", "-Tsvg"], input=source.encode("utf-8"), capture_output=True, timeout=seconds, check=False
        )
    except FileNotFoundError as exc:
        raise MapUnavailable("Graphviz's dot is not installed on this server (Debian: apt install graphviz)") from exc
    except subprocess.TimeoutExpired as exc:  # subprocess.run has killed it
        raise MapUnavailable(
            f"laying out the map took longer than {seconds:g} s (REGISTRY_MAP_SECONDS) and was stopped; "
            "draw the map around an entity with ?root=PATH",
            budget="REGISTRY_MAP_SECONDS",
        ) from exc
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise MapUnavailable(
            f"Graphviz's dot failed (exit status {done.returncode}): {reason[0][:200] if reason else 'no message'}"
        )
    return done.stdout


def check_whole_map(scope: ReadScope) -> None:
    """Refuse the whole registry's map above REGISTRY_MAP_MAX_RESOURCES resources (it reads every resource and
    every reference, a cost that grows with the registry), naming maps of groups to draw instead."""
    # here: the Spark import's executors load this module without Django's app registry, where the models fail
    from ..models import Group, Resource

    limit = _setting("REGISTRY_MAP_MAX_RESOURCES", DEFAULT_MAX_RESOURCES)
    types = [gt.plural for gt in registry_model.group_types]
    resources = scope.filter(Resource.objects.filter(group__group_type__in=types), "group__")
    # counted exactly up to the limit at least: a lower bound is then above it
    counted = estimates.estimated_count(resources, exact_below=max(estimates.EXACT_BELOW, limit + 1))
    if counted.rows <= limit:
        return
    alternatives = []
    for plural in types:
        groups = scope.filter(Group.objects.filter(group_type=plural)).order_by("gid").only("gid", "group_type")
        alternatives += [f"/map.svg?root={group.path}" for group in groups[:ALTERNATIVES]]
    amount = counted.shown() if counted.estimated else f"{counted.rows:,}"
    raise Problem(
        "too-many-entities",
        f"the whole registry's map would draw {amount} resources, more than "
        f"{limit:,} (REGISTRY_MAP_MAX_RESOURCES): draw the map of a group, resource or version instead "
        f"(GET /map.svg?root=/GROUPS/ID, or the Map section of its page in the admin)",
        members={"alternatives": alternatives},
    )


def catalog_map_svg(
    *, root: str | None, base_urls: list[str], link: Link, title: str, scope: ReadScope = EVERYTHING
) -> bytes:
    """The map around `root` (None: the whole registry) as an SVG document, of what `scope` reads."""
    if root is None:
        check_whole_map(scope)
    graph = CatalogGraph(base_urls, scope, root)
    shown = graph.shown
    resources = sum(1 for path in shown if not graph.nodes[path].is_group)
    max_nodes = _setting("REGISTRY_MAP_MAX_NODES", DEFAULT_MAX_NODES)
    if resources <= MAX_DETAILED_RESOURCES:
        draw = _detailed
    else:
        nodes, edges = _group_drawing_size(graph, shown)
        draw = _by_group if nodes <= max_nodes and edges <= 3 * max_nodes else _by_type
    dot = draw(graph, shown, link, title)
    svg = render_svg(dot.source, _setting("REGISTRY_MAP_SECONDS", DEFAULT_SECONDS))
    # dot writes each node's name in an XML comment: an id holding "--" would make the document invalid XML
    return COMMENT.sub(b"", svg)
