"""Who may do what: the one table of write permissions the services consult, the read scope and its one query
when public reads are off, a group's owners and the roles they hold, the governance UI's roles, and the throttles
of anonymous callers on the expensive routes (docs/teams.md)."""
