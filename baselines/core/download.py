"""Network helpers for downloads of official benchmark files (each benchmark's own download is in its folder,
baselines/tasks/<task>/download.py), for machines with network access.

Every download first checks that the host answers (a few seconds at most), so an offline machine
gets one clear error saying how to use local files instead of minutes of retries.
"""
from __future__ import annotations

import os
import socket

from baselines.core.errors import BaselinesError
from baselines.core.paths import data_location

HF_HOST = "huggingface.co"


def offline_error(what: str, host: str, reason: str) -> BaselinesError:
    return BaselinesError(
        f"cannot download {what}: {host} is unreachable ({reason}). Download the files on a machine with "
        f"network access (or copy them), put them under DIR as described in docs/data.md, and pass --data-dir DIR "
        f"(or set BASELINES_DATA=DIR; without either, DIR is {data_location(None)[0]})"
    )


def require_network(host: str, what: str, timeout: float = 5.0) -> None:
    """Fail at once, with instructions, when `host` cannot be resolved or reached (or HF_HUB_OFFLINE is set)."""
    if host == HF_HOST and os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise offline_error(what, host, "HF_HUB_OFFLINE is set")
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            pass
    except OSError as exc:
        raise offline_error(what, host, exc.strerror or type(exc).__name__) from None


def is_offline(exc: Exception) -> bool:
    """True for connection failures and the hub's offline-mode errors (anywhere in the cause chain)."""
    names = ("ConnectionError", "ConnectError", "Timeout", "OfflineModeIsEnabled", "LocalEntryNotFoundError",
             "NameResolutionError", "MaxRetryError", "gaierror")
    seen = exc
    while seen is not None:
        if isinstance(seen, (ConnectionError, TimeoutError, OSError)) or any(n in type(seen).__name__ for n in names):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
