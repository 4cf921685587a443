"""The store's reads and what is kept beside its tables (the tables themselves are registry/models.py, where
Django looks for them): the selectors, paging and filters of collections, search, the audit trail's rows, row
counts that stay cheap, and the values and caches that change with every committed change (the change marker,
group states, document keys, the bounded per-process cache, the earlier documents a new version is checked
against)."""
