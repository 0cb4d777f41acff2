"""Cost: token arithmetic, the budget, spend alarms, self-hosting economics and the FinOps report."""
