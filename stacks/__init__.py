"""Stacks compose constructs; they define no raw resources of their own."""
