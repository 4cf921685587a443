"""The xRegistry core binding of the 0.5-wip draft (docs/api-contract.md), generated from the registered model:
its declaration in `binding.py`, routes in `urls.py`, views in `root.py`, `groups.py`, `resources.py`."""
