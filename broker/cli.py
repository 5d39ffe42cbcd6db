"""Command line: ``python -m broker [server.properties] [--override key=value ...]``.

Like ``kafka-server-start.sh``: an optional properties file, then overrides.
Without a file the broker runs with embedded defaults: a lone broker (no
ZooKeeper) on 127.0.0.1:9092 with its data under ./data.

Logs are one line per event in logfmt (``ts=... level=... logger=... msg=...``),
INFO and above by default (``--log-level`` / ``MOLDAU_LOG_LEVEL``).
Exit codes: 0 after a graceful shutdown (SIGTERM/SIGINT); 2 when the broker
refuses to start because of something the operator must fix (a bad config value,
a corrupt ``meta.properties`` or ``topic-config-overrides.json``, a log dir locked
by another broker, a listener port in use); 1 for any other start-up failure.
Either way the reason is one line on stderr, ``moldau: ...``, without a traceback
(``--log-level DEBUG`` logs it).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import gc
import json
import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from storage.config_def import ConfigError
from storage.log_dir_failure import LogDirError

if TYPE_CHECKING:
    from broker.config import Listener

# Bind errors an operator fixes in ``listeners`` (or by stopping what holds the port).
_BIND_ERRNOS = (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES)


class LogfmtFormatter(logging.Formatter):
    """``ts=2026-01-01T00:00:00.000Z level=INFO logger=broker.server msg="..."``"""

    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        msg = record.getMessage()
        line = f"ts={ts} level={record.levelname} logger={record.name} msg={json.dumps(msg)}"
        if record.exc_info:
            line += f" exc={json.dumps(self.formatException(record.exc_info))}"
        return line


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LogfmtFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # kazoo is chatty at INFO
    logging.getLogger("kazoo").setLevel(max(logging.WARNING, root.level))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="moldau-broker", description="Moldau: a Kafka-compatible broker.")
    p.add_argument("properties", nargs="?", help="server.properties file (Kafka syntax)")
    p.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a property (repeatable), as kafka-server-start.sh",
    )
    p.add_argument("--log-level", default=os.environ.get("MOLDAU_LOG_LEVEL", "INFO"))
    return p.parse_args(argv)


class StartupError(Exception):
    """A start-up failure the operator must fix; its message is the whole report."""


def check_listeners_free(listeners: Iterable[Listener]) -> None:
    """Refuse listeners whose address cannot be bound, before the logs are loaded.

    Kafka finds a port in use only when its SocketServer binds, after a possibly long
    log recovery; trying each address first (as asyncio's server will: SO_REUSEADDR,
    every address the host resolves to) reports it at once. The real bind may still
    fail if another process takes the port in between; ``run`` reports that the same way.
    """
    for lst in listeners:
        if lst.port == 0:
            continue
        where = f"{lst.host or '0.0.0.0'}:{lst.port}"
        try:
            infos = socket.getaddrinfo(
                lst.host or None, lst.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            )
        except socket.gaierror as exc:
            raise StartupError(
                f"listeners: cannot resolve {lst.host!r} ({exc.strerror}); fix listeners"
            ) from None
        for family, kind, proto, _, addr in infos:
            try:
                with socket.socket(family, kind, proto) as sock:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    if family == socket.AF_INET6:
                        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                    sock.bind(addr)
            except OSError as exc:
                if exc.errno not in _BIND_ERRNOS:
                    raise
                raise StartupError(_bind_failure(where, exc)) from None


def _bind_failure(where: str, exc: OSError) -> str:
    # Kafka's SocketServer: "Socket server failed to bind to host:port: Address already in use."
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    hint = (
        "Stop the process listening there, or choose another port in listeners."
        if exc.errno == errno.EADDRINUSE
        else "Fix the host or port in listeners."
    )
    return f"Socket server failed to bind to {where}: {reason}. {hint}"


def _report(message: str) -> None:
    print(f"moldau: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # The event loop thread rarely blocks, so a helper thread (fsync, a ZooKeeper lease)
    # whose syscall returned waits for the GIL until the loop thread is forced to switch.
    # At 1 ms instead of CPython's 5 ms a producer-id lease under load took 4 ms instead of 24.
    sys.setswitchinterval(0.001)
    # Start-up (the modules, a dozen objects per partition log) builds what lives as long as
    # the process: the cyclic collector would scan that growing heap again and again (a fifth
    # of loading 10,000 partitions), then on every full collection. It is off until the
    # broker has started, and what start-up built is then frozen out of its sight.
    gc.disable()
    setup_logging(args.log_level)
    log = logging.getLogger("broker")
    try:
        return _main(args, log)
    except ConfigError as exc:
        _report(f"invalid configuration: {exc}")
        return 2
    except (StartupError, LogDirError) as exc:
        _report(f"cannot start: {exc}")
        return 2
    except Exception as exc:
        log.debug("startup failed", exc_info=True)
        _report(
            f"startup failed: {type(exc).__name__}: {exc} (rerun with --log-level DEBUG for the traceback)"
        )
        return 1
    finally:
        gc.enable()  # when called in a process that goes on (tests)


def _main(args: argparse.Namespace, log: logging.Logger) -> int:
    from broker.config import BrokerConfig

    config = BrokerConfig.load(args.properties, args.override)
    config.warn_unknown()
    check_listeners_free(config.listeners)
    from broker.broker import Broker
    from coordinator.producer_ids import ProducerIdsFatalError

    async def run() -> int:
        broker = Broker(config)
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        try:
            await broker.start()
        except BaseException as exc:
            # Undo what started, quietly (errors still show), then report the cause.
            root = logging.getLogger()
            level = root.level
            root.setLevel(max(level, logging.WARNING))
            try:
                await broker.stop()
            finally:
                root.setLevel(level)
            if isinstance(exc, OSError) and exc.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL):
                raise StartupError(_bind_failure(", ".join(map(str, config.listeners)), exc)) from exc
            if isinstance(exc, (OSError, ProducerIdsFatalError)):
                # ZooKeeper unreachable, a file the broker may not read: the message says it.
                _report(f"startup failed: {exc}")
                return 1
            raise
        gc.freeze()
        gc.enable()
        await stop.wait()
        log.info("shutting down")
        await broker.stop()
        log.info("shut down cleanly")
        return 0

    try:
        import uvloop
    except ImportError:  # uvloop is optional at run time
        return asyncio.run(run())
    return uvloop.run(run())


if __name__ == "__main__":
    sys.exit(main())
