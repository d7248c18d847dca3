"""`python -m dreamchat.api.server`: the local server (`make run`)."""

from __future__ import annotations

import argparse

import uvicorn

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.logsafe import configure_local_logging


def main() -> None:
    parser = argparse.ArgumentParser(description="Run DreamChat Cloud locally")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    configure_local_logging()
    settings = Settings()
    # Forwarded headers are believed only from the proxies named in DREAMCHAT_TRUSTED_PROXIES.
    proxies = ",".join(settings.trusted_proxies)
    # No access log: query strings can carry what a person typed (e.g. a retrieval preview).
    # log_config=None: uvicorn logs through our one handler instead of configuring its own.
    uvicorn.run(
        create_app(settings),
        host=args.host,
        port=args.port,
        log_config=None,
        log_level="info",
        access_log=False,
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or None,
    )


if __name__ == "__main__":
    main()
