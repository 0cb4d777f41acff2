"""The network section: the VPC, its subnets and the endpoints."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from landing_zone.core.config import rules
from landing_zone.core.config.sections.common import (
    DEFAULT_ENDPOINTS,
    EndpointService,
    RetentionDays,
    SubnetId,
    VpcId,
    _Problem,
    _raise_all,
    _Strict,
)
from landing_zone.errors import Described


class Network(_Strict):
    """The private network perimeter.  Give ``vpc_cidr`` for a new VPC, or ``vpc_id`` + ``subnet_ids`` +
    ``vpc_cidr`` to import an existing one (no lookups: synth stays offline)."""

    vpc_cidr: str = "10.40.0.0/16"
    vpc_id: VpcId | None = None
    subnet_ids: tuple[SubnetId, ...] = ()
    availability_zones: Annotated[tuple[str, ...], rules.WhenOmitted("the first `az_count` AZs of the account")] = (
        Field(
            default=(),
            description="AZ names for the subnets.  Omitted: the first `az_count` AZs of the account, resolved at "
            "deploy time with Fn::GetAZs (synth never needs an AZ lookup).  Required with vpc_id.",
        )
    )
    az_count: int = Field(default=2, ge=2, le=6, description="Number of AZs when availability_zones is omitted.")
    endpoints: tuple[EndpointService, ...] = DEFAULT_ENDPOINTS
    endpoint_principals: Literal["accounts", "organization"] = Field(
        default="accounts",
        description="Who the endpoint policies admit: the governed accounts (aws:PrincipalAccount listing "
        "`accounts`), or the whole organization (aws:PrincipalOrgID = organization.organization_id; needs it). "
        "Omitted: the governed accounts only.",
    )
    flow_log_retention_days: RetentionDays = Field(
        default=365, description="One of the CloudWatch Logs retention periods."
    )

    @field_validator("vpc_cidr")
    @classmethod
    def _cidr(cls, v: str) -> str:
        try:
            net = ipaddress.ip_network(v, strict=True)
        except ValueError:
            raise ValueError("must be an IPv4 CIDR block such as '10.40.0.0/16'") from None
        if net.version != 4 or not 16 <= net.prefixlen <= 24:
            raise ValueError("must be an IPv4 CIDR with a prefix length between /16 and /24")
        return v

    @model_validator(mode="after")
    def _imported_vpc(self) -> Network:
        problems: list[_Problem] = []
        if self.vpc_id and not self.subnet_ids:
            problems.append(
                (
                    ("subnet_ids",),
                    [],
                    f"vpc_id is {self.vpc_id!r} but subnet_ids is empty: an imported VPC "
                    "needs the IDs of the subnets for the endpoints",
                )
            )
        if self.subnet_ids and not self.vpc_id:
            problems.append(
                (
                    ("vpc_id",),
                    Described("nothing"),
                    "subnet_ids is set without vpc_id: give the ID of the VPC they belong to, "
                    "or remove subnet_ids to create a new VPC",
                )
            )
        if self.subnet_ids and len(self.availability_zones) != len(self.subnet_ids):
            problems.append(
                (
                    ("availability_zones",),
                    list(self.availability_zones),
                    f"an imported VPC needs one AZ per entry of subnet_ids ({len(self.subnet_ids)} subnet(s))",
                )
            )
        _raise_all(problems)
        return self
