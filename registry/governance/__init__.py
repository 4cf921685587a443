"""The governance UI's parts (Django's admin): forms that write through the services, access by teams and owners,
history, search, references, the catalog map, teams, tokens, the dashboard and the admin's pages beside the model
admins. The model admins themselves are registry/admin.py (where Django looks for them); this package is loaded when
the admin is first used (discovery.py), except the registrations apps make at start-up (dashboard, map_facts)."""
