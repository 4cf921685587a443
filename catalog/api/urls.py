"""Routes of the catalog's checks (docs/api-contract.md section 12): below the core binding's paths
(`core_urlpatterns`: compatibility dry run and version diff in `checks.py`, message validation in `validation.py`)
(the 1.0 binding's doors to message validation are in catalog/api/v10_validation.py); config/urls.py mounts
them. The older bindings' routes are in registry/bindings/older/urls.py."""

from django.urls import path

from . import checks, validation

# the checks of docs/api-contract.md section 12, below the core binding's paths (mounted where that binding is)
core_urlpatterns = [
    *checks.urlpatterns_for(),
    path(
        "definitionGroups/<str:gid>/validate", validation.GroupValidateView.as_view(), name="definitionGroups-validate"
    ),
    path(
        "definitionGroups/<str:gid>/definitions/<str:did>/validate",
        validation.DefinitionValidateView.as_view(),
        name="definitionGroups-definitions-validate",
    ),
]
