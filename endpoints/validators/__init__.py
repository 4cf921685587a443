"""Validators of endpoints (pure Python, no Django): attributes, protocol options, references."""
