"""Django's SQLite backend with writers that take turns (`base.py`): the `ENGINE` of config/settings.py's SQLite."""
