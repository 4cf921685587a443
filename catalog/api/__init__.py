"""The catalog's own HTTP endpoints: the compatibility dry run, the version diff and message validation
(`checks.py`, `validation.py`), mounted below the bindings' paths; routes in `urls.py`."""
