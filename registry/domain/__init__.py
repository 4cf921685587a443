"""The registry's domain, which knows no tables: the model as data (group and resource types), the common
attributes and their rules, the problem errors every refusal is, the references between entities, and the hooks
through which apps validate, resolve and extend what is written."""
