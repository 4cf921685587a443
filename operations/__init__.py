"""Operations: what a platform runs the registry with, and nothing the registry itself needs.

Health probes (`/healthz`, `/readyz`), Prometheus metrics (`/metrics`), request ids and structured logs. It may
import the registry and its apps; the registry never imports it (config/settings.py installs it).
"""
