"""Kubernetes manifests of the optional self-hosting (pure builders)."""
