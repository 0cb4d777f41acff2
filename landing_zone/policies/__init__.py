"""Pure policy builders: functions that return IAM/SCP/endpoint/key policy documents as plain dicts."""
