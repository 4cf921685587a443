"""Project configuration: settings, root URLs and the WSGI entry point."""
