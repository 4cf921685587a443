"""xmlschema's schema classes with the check budget (issue 24, catalog.validators.budget) in their build: building
an XML Schema is pure Python, slow enough that a document of a few megabytes of complex types held a worker, and
a compatibility dry run builds the candidate of an XSD schema for anyone who may read.

`schema_class("1.0" | "1.1")` is XMLSchema10 or XMLSchema11 whose component builders spend a step before making
each component and before each decoding of a value by a component: both the build's validation of the document
against the metaschema (most of a build's time) and the validation of data by the schema. The extension point is
xmlschema's own: a schema class's `builders` descriptor (XsdBuilders), as xmlschema's test observers
(xmlschema.testing) wrap it, and a metaschema class of its own (`META_SCHEMA`). The classes and their metaschemas
are built once per process, outside any budget (`budget.paused`).
"""

from __future__ import annotations

import functools

import xmlschema
from xmlschema.validators import XsdBuilders

from . import budget


def _budgeted(builder):
    """A component class (or builder function) that spends a budget step before building each component, and
    before each decoding (validation) of a value by one."""
    if isinstance(builder, type):
        members = {"__init__": _spending_init(builder), "__module__": __name__}
        if hasattr(builder, "raw_decode"):
            members["raw_decode"] = _spending_decode(builder)
        return type(builder)(builder.__name__, (builder,), members)
    if callable(builder):

        @functools.wraps(builder)
        def build(*args, **kwargs):
            budget.spend()
            return builder(*args, **kwargs)

        return build
    return builder


def _spending_init(cls):
    def __init__(self, *args, **kwargs):  # noqa: N807
        budget.spend()
        cls.__init__(self, *args, **kwargs)

    return __init__


def _spending_decode(cls):
    def raw_decode(self, *args, **kwargs):
        budget.spend()
        return cls.raw_decode(self, *args, **kwargs)

    return raw_decode


@functools.cache
def schema_class(version: str):
    """The budgeted XMLSchema10 (`version` "1.0") or XMLSchema11 (anything else), made once per process."""
    with budget.paused():

        class BudgetedBuilders(XsdBuilders):
            def __set_name__(self, cls, name):
                super().__set_name__(cls, name)
                for attr in XsdBuilders.__slots__:
                    value = getattr(self, attr, None)
                    if isinstance(value, dict):
                        setattr(self, attr, {k: _budgeted(v) for k, v in value.items()})
                    elif isinstance(value, type):
                        setattr(self, attr, _budgeted(value))

        base = xmlschema.XMLSchema10 if version == "1.0" else xmlschema.XMLSchema11
        members = {
            "builders": BudgetedBuilders(),
            "__module__": __name__,
            # a metaschema of its own, built with the budgeted builders: the build validates the document
            # against it, most of a build's time
            "META_SCHEMA": base.META_SCHEMA,
            "BASE_SCHEMAS": base.BASE_SCHEMAS,
        }
        metaclass: type = type(base)  # xmlschema's schema metaclass builds the class as it builds its own
        cls = metaclass(f"Budgeted{base.__name__}", (base,), members)
        cls.meta_schema.build()
    return cls


__all__ = ["schema_class"]
