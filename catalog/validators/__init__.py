"""Format validators of the CloudEvents Registry.

Pure Python: nothing here imports Django, so the Spark executors can run the same checks as the API.
Every validator returns a list of error strings, each beginning with the attribute path it concerns
(`metadata.attributes.type.required must not be false`); an empty list means valid.
"""
