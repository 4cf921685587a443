"""A small registry with references between its entities, for the governance screens' tests: schema Orders/Placed
(two versions), definitions pointing at it in three spellings, a borrowed definition, an endpoint pointing at their group."""

from __future__ import annotations

SCHEMA_V1 = {
    "type": "object",
    "description": "An order as placed by a customer",
    "properties": {"orderId": {"type": "string"}, "warehouseLocation": {"type": "string"}},
}
SCHEMA_V2 = {"type": "object", "properties": {"orderId": {"type": "string"}, "total": {"type": "number"}}}


def definition(type_: str, schemaurl: str) -> dict:
    return {
        "format": "CloudEvents/1.0",
        "schemaformat": "JsonSchema/draft-07",
        "schemaurl": schemaurl,
        "metadata": {"attributes": {"type": {"value": type_}}},
    }


DOCUMENT = {
    "specversion": "0.5-wip",
    "schemaGroups": {
        "Orders": {
            "description": "order schemas",
            "tags": {"owner": "team-orders"},
            "schemas": {
                "Placed": {
                    "format": "JsonSchema/draft-07",
                    "versions": {
                        "1": {"format": "JsonSchema/draft-07", "schema": SCHEMA_V1},
                        "2": {"format": "JsonSchema/draft-07", "schema": SCHEMA_V2},
                    },
                },
                "Unused": {
                    "format": "JsonSchema/draft-07",
                    "versions": {"1": {"format": "JsonSchema/draft-07", "schema": {"type": "string"}}},
                },
            },
        }
    },
    "definitionGroups": {
        "Shop": {
            "format": "CloudEvents/1.0",
            "definitions": {
                "OrderPlaced": definition(
                    "com.example.placed", "#/schemaGroups/Orders/schemas/Placed/versions/1:Order"
                ),
                "OrderAudited": definition("com.example.audited", "/schemaGroups/Orders/schemas/Placed"),
                "OrderArchived": definition(
                    "com.example.archived", "http://elsewhere.example/schemaGroups/Orders/schemas/Placed"
                ),
                "OrderPlacedAgain": {
                    "format": "CloudEvents/1.0",
                    "uri": "#/definitionGroups/Shop/definitions/OrderPlaced",
                    "metadata": {"attributes": {"type": {"value": "com.example.placed2"}}},
                },
            },
        }
    },
    "endpoints": {
        "shop.http": {
            "usage": "producer",
            "config": {"protocol": "HTTP", "endpoints": ["https://shop.example.com/events"]},
            "definitionGroups": ["#/definitionGroups/Shop"],
        }
    },
}


def seed() -> None:
    """Import DOCUMENT through the services (as the admin's upload does)."""
    import copy

    from registry.documents.imports import import_document
    from registry.services import WriteContext

    import_document(WriteContext(user="seed"), copy.deepcopy(DOCUMENT))
