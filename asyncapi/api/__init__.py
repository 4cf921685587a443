"""HTTP views of the AsyncAPI app, mounted under `/registry` (config/urls.py)."""
