"""Pure-Python core of the Kimi-on-Bedrock landing zone.

Nothing in this package imports ``aws_cdk``: config, catalog, routing, policy builders, pricing and the CLI
are plain Python so they can be unit-tested in milliseconds and reused by reports and `verify`.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
