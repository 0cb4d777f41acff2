"""The configuration by section (organization, network, workload, cost, access, guardrails), on a common base;
:mod:`landing_zone.core.config.schema` assembles them into one model and one list of problems."""
