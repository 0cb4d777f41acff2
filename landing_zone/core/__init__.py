"""Pure inputs of the landing zone: the configuration contract, the catalog of AWS facts, ARNs, the routing
decision and the applications.  Nothing here knows about CDK, costs or policies."""
