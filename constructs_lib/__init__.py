"""CDK constructs, one concern each, with typed keyword-only props and typed public attributes.

Policy documents come from the pure builders in ``landing_zone.policies``; constructs only wire them in.
"""
