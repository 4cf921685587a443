"""Django's PostgreSQL backend with the pool's check of config/postgresql/base.py (`ENGINE` "config.postgresql")."""
