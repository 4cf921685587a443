"""Endpoints: the endpoint registry's group type, its attributes and protocol options."""
