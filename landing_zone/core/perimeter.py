"""The governed perimeter: the accounts the landing zone deploys to, and who each guardrail binds.

The landing zone governs the accounts it deploys to: the deployment account and ``accounts``, and with the member
baseline every account under its OUs (service-managed StackSets deploy to new accounts there too).  Inside the
perimeter every guarantee holds (``prove``: P1-P6).  In the other accounts under ``organization.target_ids`` only one
thing is restricted: the landing zone's models cannot be invoked there (``prove``: PO1), so every call of them is
logged, alarmed and budgeted.  ``organization.outside_perimeter`` opts in to more.

A target of ``organization.target_ids`` is *governed* when it is a governed account or a member-baseline OU (every
account under it is governed), else *shared* (a root or OU that may hold other teams' accounts).  The SCP layout
(:mod:`landing_zone.policies.scp_layout`) attaches the guardrails to the governed targets and, when a shared target
exists, to the governed accounts themselves; a shared target receives the perimeter SCP and the opted-in ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from landing_zone.core.config import LandingZoneConfig

__all__ = ["Perimeter", "perimeter"]


@dataclass(frozen=True)
class Perimeter:
    """``accounts``: the governed accounts named in the configuration (sorted; the management account aside: SCPs
    do not apply to it); ``ous``: the member baseline's OUs (every account under them is governed);
    ``targets``: ``organization.target_ids`` in the configured order; ``covered``: the governed accounts the
    guardrails reach through a governed target (a target themselves, or in a member-baseline OU)."""

    accounts: tuple[str, ...]
    ous: tuple[str, ...]
    targets: tuple[str, ...]
    covered: tuple[str, ...]
    restrict_other_models: bool
    confine_to_compliant_regions: bool

    def governs(self, target: str) -> bool:
        """Whether every account under ``target`` is governed (a governed account, or a member-baseline OU)."""
        return target in self.accounts or target in self.ous

    @property
    def governed_targets(self) -> tuple[str, ...]:
        return tuple(t for t in self.targets if self.governs(t))

    @property
    def shared_targets(self) -> tuple[str, ...]:
        """Targets that may hold accounts outside the perimeter: they receive the perimeter SCP."""
        return tuple(t for t in self.targets if not self.governs(t))

    @property
    def account_attachments(self) -> tuple[str, ...]:
        """Governed accounts the guardrails attach to directly: those no governed target covers."""
        return tuple(a for a in self.accounts if a not in self.covered)

    @property
    def inside_targets(self) -> tuple[str, ...]:
        """Where the guardrails that bind the perimeter only attach: governed targets, then uncovered accounts."""
        return (*self.governed_targets, *self.account_attachments)

    @property
    def org_path_patterns(self) -> tuple[str, ...]:
        """``aws:PrincipalOrgPaths`` patterns of the member-baseline OUs (any depth below them)."""
        return tuple(f"o-*/r-*/*{ou}/*" for ou in self.ous)


def perimeter(config: LandingZoneConfig) -> Perimeter | None:
    """The perimeter of an organization configuration (None without an ``organization`` block)."""
    org = config.organization
    if org is None:
        return None
    management = org.management_account_id
    accounts = tuple(sorted({config.deployment_account, *config.account_ids} - {management}))
    member_baseline = config.member_baseline.enabled
    ous = tuple(config.member_target_ous) if member_baseline else ()
    ou_of = {a.id: a.ou_id for a in config.accounts}
    covered = tuple(
        a
        for a in accounts
        if a in org.target_ids or (member_baseline and a in ou_of and (ou_of[a] is None or ou_of[a] in ous))
    )
    return Perimeter(
        accounts=accounts,
        ous=ous,
        targets=tuple(org.target_ids),
        covered=covered,
        restrict_other_models=org.outside_perimeter.restrict_other_models,
        confine_to_compliant_regions=org.outside_perimeter.confine_to_compliant_regions,
    )
