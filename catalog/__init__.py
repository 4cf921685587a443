"""The catalog: definition groups and schema groups, message/schema format and compatibility validators."""
