"""The Lambda code of the landing zone's custom resources, one folder per handler (``<name>/index.py``).

Each folder is a Lambda asset, bundled as it is (``constructs_lib.custom_resource``); this package only makes the
folders findable wherever the landing zone is installed (site-packages or the checkout).  Nothing here is imported
by the handlers themselves: each runs alone in Lambda's Python runtime with boto3.
"""

from pathlib import Path

__all__ = ["HANDLERS_DIR"]

HANDLERS_DIR = Path(__file__).resolve().parent
