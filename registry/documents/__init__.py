"""The registry document format (`.cereg` JSON / YAML): safe parsing, import (a service) and export (a read)."""
