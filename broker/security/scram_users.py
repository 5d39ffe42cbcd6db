"""SCRAM users without a running broker (the first users of a SASL-only cluster), with the
syntax of Kafka's ``kafka-configs.sh --zookeeper ... --entity-type users``::

    python -m broker.security.scram_users --log-dir ./data --entity-name alice \\
        --add-config 'SCRAM-SHA-512=[iterations=8192,password=alice-secret]'
    python -m broker.security.scram_users --zookeeper 127.0.0.1:2181/moldau --entity-name alice \\
        --delete-config SCRAM-SHA-512
    python -m broker.security.scram_users --log-dir ./data --describe

``--log-dir`` writes the credentials file of a broker without ZooKeeper (the first of its
``log.dirs``; read when the broker starts); ``--zookeeper`` writes ``/config/users/<user>``
and a change notification, which running brokers apply at once. With a running broker,
AlterUserScramCredentials through an admin client does the same (KIP-554).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from broker.security.credential_store import (
    CREDENTIALS_FILE,
    CredentialStore,
    FileCredentialStore,
    ZkCredentialStore,
)
from broker.security.scram import MECHANISMS, ScramCredential

DEFAULT_ITERATIONS = 4096  # kafka-configs.sh's default


def parse_add_config(text: str) -> dict[str, tuple[str, int]]:
    """``SCRAM-SHA-256=[iterations=8192,password=x],SCRAM-SHA-512=[password=y]`` -> {mechanism: (password, iterations)}."""
    out = {}
    for m in re.finditer(r"(SCRAM-SHA-(?:256|512))=\[([^\]]*)\]", text):
        options = dict(item.split("=", 1) for item in m[2].split(",") if "=" in item)
        if "password" not in options:
            raise SystemExit(f"--add-config: no password for {m[1]}")
        out[m[1]] = (options["password"], int(options.get("iterations", DEFAULT_ITERATIONS)))
    if not out:
        raise SystemExit("--add-config: expected SCRAM-SHA-256=[password=...] or SCRAM-SHA-512=[...]")
    return out


def _store(args: argparse.Namespace) -> tuple[CredentialStore, object | None]:
    if args.zookeeper:
        from coordinator.zk_admin import AdminZkClient
        from coordinator.zookeeper import ZooKeeperClient

        zk = ZooKeeperClient(
            args.zookeeper, session_timeout_ms=18_000, time_ms=lambda: int(time.time() * 1000)
        )
        zk.start()
        return ZkCredentialStore(AdminZkClient(zk)), zk
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    return FileCredentialStore(log_dir / CREDENTIALS_FILE), None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m broker.security.scram_users", description=__doc__.split("\n")[0]
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--log-dir", help="the broker's first log dir (no ZooKeeper)")
    where.add_argument("--zookeeper", help="zookeeper.connect of the cluster")
    parser.add_argument("--entity-type", default="users", choices=["users"])
    parser.add_argument("--entity-name", help="the user")
    parser.add_argument("--alter", action="store_true", help="accepted for kafka-configs.sh compatibility")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--add-config", help="SCRAM-SHA-256=[iterations=N,password=P],SCRAM-SHA-512=[...]")
    action.add_argument("--delete-config", help="SCRAM-SHA-256,SCRAM-SHA-512")
    action.add_argument("--describe", action="store_true")
    args = parser.parse_args(argv)
    store, zk = _store(args)
    try:
        if args.describe:
            users = store.read_all()
            for user in sorted(users):
                if args.entity_name in (None, user):
                    infos = ",".join(f"{m}=iterations={c.iterations}" for m, c in sorted(users[user].items()))
                    print(f"SCRAM credential configs for user-principal '{user}' are {infos}")
            return 0
        if not args.entity_name:
            parser.error("--entity-name is required with --add-config / --delete-config")
        creds = store.read_user(args.entity_name)
        if args.add_config:
            for mechanism, (password, iterations) in parse_add_config(args.add_config).items():
                if iterations < MECHANISMS[mechanism].min_iterations:
                    raise SystemExit(f"{mechanism}: iterations {iterations} below the minimum 4096")
                creds[mechanism] = ScramCredential.from_password(MECHANISMS[mechanism], password, iterations)
        else:
            for mechanism in (m.strip() for m in args.delete_config.split(",")):
                creds.pop(mechanism, None)
        store.write_user(args.entity_name, creds)
        print(f"Completed updating config for user {args.entity_name}.")
        return 0
    finally:
        if zk is not None:
            zk.close()  # type: ignore[attr-defined]


if __name__ == "__main__":
    sys.exit(main())
