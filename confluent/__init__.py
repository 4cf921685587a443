"""The Confluent-compatible Schema Registry API at `/confluent` (issue 25, docs/confluent.md): one more binding over
the registry's store, for the Kafka serializers of every language."""
