"""Issue 11 item 17: documents written by the xRegistry code generator's authors are accepted: a timestamp whose
value is a placeholder filled at run time, and MQTT user-properties in the 1.0 shape ({"name", "type"})."""

import pytest

from catalog.validators.definitions import validate_definition
from tests.helpers import make_definition_group, send

pytestmark = pytest.mark.django_db

TIMED = {
    "format": "CloudEvents/1.0",
    "metadata": {
        "attributes": {
            "type": {"value": "com.example.telemetry"},
            "source": {"value": "/devices/{deviceid}"},
            "time": {"type": "timestamp", "value": "{entrytime}", "required": True},
        }
    },
}
MQTT = {
    "format": "MQTT/5.0",
    "metadata": {
        "topic-name": {"value": "devices/{deviceid}/telemetry"},
        "user-properties": [
            {"name": "tenant", "type": "string"},
            {"name": "zone", "type": "string", "value": "eu"},
            {"legacy": {"type": "string"}},
        ],
    },
}


def test_a_timestamp_placeholder_is_valid():
    assert validate_definition(TIMED) == []
    broken = {
        **TIMED,
        "metadata": {
            "attributes": {**TIMED["metadata"]["attributes"], "time": {"type": "timestamp", "value": "{entrytime}Z"}}
        },
    }
    assert validate_definition(broken) and "RFC 3339" in validate_definition(broken)[0]


def test_mqtt_user_properties_in_both_shapes():
    assert validate_definition(MQTT) == []
    bad = {**MQTT, "metadata": {**MQTT["metadata"], "user-properties": [{"name": "p", "type": "nope"}]}}
    assert "user-properties[0].p.type" in validate_definition(bad)[0]


def test_through_the_api(su):
    make_definition_group(su)
    response = send(su, "POST", "/definitionGroups/dg1/definitions", TIMED, "application/json", id="telemetry")
    assert response.status_code == 201, response.content
    su.post("/definitionGroups", {"id": "mq", "format": "MQTT/5.0"}, format="json")
    response = send(su, "POST", "/definitionGroups/mq/definitions", MQTT, "application/json", id="t")
    assert response.status_code == 201, response.content
