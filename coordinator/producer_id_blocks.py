"""Producer-id blocks and the two places they are leased from.

A broker hands out producer ids from a *block* it has leased; no two leases
anywhere overlap, so no two producers share an id (Kafka's ``ProducerIdsBlock``
and ``ZkProducerIdManager.getNewProducerIdBlock``).

Sources (each ``lease_next_block`` is blocking and runs in the
ProducerIdManager's executor thread, never on the event loop):

- ``ZooKeeperBlockSource`` (``zookeeper.connect`` set): the persistent znode
  ``/latest_producer_id_block`` holds the last block leased by any broker, in
  Kafka's JSON ``{"version":1,"broker":N,"block_start":"S","block_end":"E"}``
  (start and end are JSON strings). The next block starts right after it; the
  write is conditional on the znode version and retried when another broker
  wrote in between (BadVersion), exactly as Kafka 2.x-3.x ZK brokers do, so
  Moldau brokers and ZK-mode Kafka brokers could share one ZooKeeper.
- ``EmbeddedBlockSource`` (no ZooKeeper, a lone broker): the same JSON in the
  file ``producer-id-block`` of the first log dir. Each new block is written
  to a temporary file, fsynced, renamed over the old one and the directory
  fsynced *before* any id of it is handed out, so a crash or kill -9 can only
  skip ids, never hand one out twice.

The first block is 0..size-1. Leasing past 2^63-1 is a fatal error
(``ProducerIdsExhaustedError``), as Kafka's "Have exhausted all producerIds".
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from coordinator.zookeeper import ZooKeeperClient, ZooKeeperError
from storage.durable_io import atomic_write

log = logging.getLogger(__name__)

LONG_MAX = 2**63 - 1
BLOCK_JSON_VERSION = 1  # ProducerIdBlockZNode.CurrentVersion
PRODUCER_ID_BLOCK_ZNODE = "/latest_producer_id_block"  # ProducerIdBlockZNode.path
PRODUCER_ID_BLOCK_FILE = "producer-id-block"  # Moldau's embedded lease file, in the first log dir
MAX_CONFLICT_RETRIES = 100


@dataclass(frozen=True, slots=True)
class ProducerIdBlock:
    """``size`` consecutive ids from ``first_id``, leased by ``broker_id`` (Kafka's ProducerIdsBlock)."""

    broker_id: int
    first_id: int
    size: int

    @property
    def last_id(self) -> int:
        return self.first_id + self.size - 1

    def __str__(self) -> str:
        return f"{self.first_id}-{self.last_id} (broker {self.broker_id})"


class ProducerIdBlockError(Exception):
    """Leasing a block failed for now (ZooKeeper away, I/O error); try again later."""


class ProducerIdBlockFatalError(Exception):
    """Leasing can never succeed again without an operator: ids exhausted, lease state unreadable."""


class ProducerIdsExhaustedError(ProducerIdBlockFatalError):
    """The next block would pass 2^63-1 (Kafka: "Have exhausted all producerIds")."""


class ProducerIdBlockSource(Protocol):
    """Where blocks come from. All methods are blocking (called off the event loop)."""

    description: str
    block_size: int  # the configured ids per block (producer.id.block.size)

    def open(self) -> None: ...

    def close(self) -> None: ...

    def lease_next_block(self, size: int | None = None) -> ProducerIdBlock:
        """Lease the block after the last one leased: ``size`` ids (default: the configured block size)."""
        ...

    def set_available_listener(self, callback: Callable[[], None]) -> None:
        """``callback`` (called from any thread) when the source may work again after trouble."""
        ...


def encode_block(block: ProducerIdBlock) -> bytes:
    """Kafka's ``ProducerIdBlockZNode.generateProducerIdBlockJson`` (compact, this key order)."""
    return json.dumps(
        {
            "version": BLOCK_JSON_VERSION,
            "broker": block.broker_id,
            "block_start": str(block.first_id),
            "block_end": str(block.last_id),
        },
        separators=(",", ":"),
    ).encode()


def decode_block(data: bytes) -> ProducerIdBlock:
    """Kafka's ``ProducerIdBlockZNode.parseProducerIdBlockData``; ValueError if it does not parse.

    Kafka writes start and end as strings; plain JSON numbers are accepted too.
    """
    try:
        obj = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    try:
        broker = obj["broker"]
        start = _as_long(obj["block_start"])
        end = _as_long(obj["block_end"])
    except KeyError as exc:
        raise ValueError(f"missing {exc.args[0]!r}") from None
    if not isinstance(broker, int) or isinstance(broker, bool):
        raise ValueError(f"broker {broker!r} is not an integer")
    if not 0 <= start <= end <= LONG_MAX:
        raise ValueError(f"block {start}-{end} is not a range of non-negative 64-bit ids")
    return ProducerIdBlock(broker, start, end - start + 1)


def _as_long(value: object) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a producer id")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise ValueError(f"{value!r} is not a producer id")


def next_block(last: ProducerIdBlock | None, *, broker_id: int, size: int) -> ProducerIdBlock:
    """The block after ``last`` (the first block 0..size-1 if there is none).

    Raises ProducerIdsExhaustedError when it would pass 2^63-1, with Kafka's
    check ``lastProducerId > Long.MaxValue - blockSize``.
    """
    if size < 1:
        raise ValueError(f"producer.id.block.size must be at least 1, not {size}")
    if last is None:
        return ProducerIdBlock(broker_id, 0, size)
    if last.last_id > LONG_MAX - size:
        raise ProducerIdsExhaustedError(
            f"have exhausted all producer ids: the last leased block ends at {last.last_id}, "
            f"a block of {size} more would pass 2^63-1"
        )
    return ProducerIdBlock(broker_id, last.last_id + 1, size)


# ---------------------------------------------------------------------- embedded


class EmbeddedBlockSource:
    """Blocks leased from a file in the first log dir (a lone broker, no ZooKeeper)."""

    def __init__(self, path: Path, *, broker_id: int, block_size: int) -> None:
        self.path = Path(path)
        self.broker_id = broker_id
        self.block_size = block_size
        self.description = f"file {self.path}"
        self._last: ProducerIdBlock | None = None

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def close(self) -> None:
        pass

    def set_available_listener(self, callback: Callable[[], None]) -> None:
        pass  # a local file has no outages to recover from

    def read_last_block(self) -> ProducerIdBlock | None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ProducerIdBlockError(f"cannot read {self.path}: {exc.strerror}") from None
        try:
            return decode_block(data)
        except ValueError as exc:
            # Guessing could hand out ids that producers already use.
            raise ProducerIdBlockFatalError(
                f"{self.path} is corrupt ({exc}); cannot tell which producer ids were handed out. "
                f"Restore it, or write a block ending above every id ever used"
            ) from None

    def lease_next_block(self, size: int | None = None) -> ProducerIdBlock:
        # This broker is the file's only writer: after the first read, its last lease is known.
        last = self._last if self._last is not None else self.read_last_block()
        block = next_block(last, broker_id=self.broker_id, size=size or self.block_size)
        try:
            # written, fsynced and renamed before any id of the block is handed out
            atomic_write(self.path, encode_block(block))
        except OSError as exc:
            self._last = None  # unsure what reached the disk: read it again next time
            raise ProducerIdBlockError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        self._last = block
        log.info("leased producer-id block %s from %s", block, self.path)
        return block


# ---------------------------------------------------------------------- ZooKeeper


class ZooKeeperBlockSource:
    """Blocks leased from the znode ``/latest_producer_id_block`` (Kafka's ZkProducerIdManager)."""

    def __init__(
        self,
        zookeeper: ZooKeeperClient,
        *,
        broker_id: int,
        block_size: int,
        before_write: Callable[[], None] | None = None,
        owns_session: bool = True,
    ) -> None:
        self.zookeeper = zookeeper
        # False when the broker started the session and shares it with other components:
        # then opening and closing the source leave the session alone.
        self.owns_session = owns_session
        self.broker_id = broker_id
        self.block_size = block_size
        # Called between the read and the conditional write; tests put a competing writer here.
        self.before_write = before_write
        self.conflicts = 0  # conditional writes lost to another writer (then retried)
        self.description = f"ZooKeeper {zookeeper.connect_string} {PRODUCER_ID_BLOCK_ZNODE}"

    def open(self) -> None:
        if self.owns_session:
            self.zookeeper.start()

    def close(self) -> None:
        if self.owns_session:
            self.zookeeper.close()

    def set_available_listener(self, callback: Callable[[], None]) -> None:
        self.zookeeper.add_connection_listener(callback)

    def lease_next_block(self, size: int | None = None) -> ProducerIdBlock:
        from kazoo.exceptions import BadVersionError, KazooException, NodeExistsError, NoNodeError

        zk = self.zookeeper
        if not zk.connected:
            raise ProducerIdBlockError("not connected to ZooKeeper")
        try:
            for _ in range(MAX_CONFLICT_RETRIES):
                try:
                    data, stat = zk.get_data(PRODUCER_ID_BLOCK_ZNODE)
                except NoNodeError:
                    data, stat = b"", None
                if data:
                    try:
                        last = decode_block(data)
                    except ValueError as exc:
                        raise ProducerIdBlockFatalError(
                            f"{PRODUCER_ID_BLOCK_ZNODE} holds {data[:200]!r}, not a producer-id block ({exc})"
                        ) from None
                else:
                    last = None  # created empty by the persistent paths: no block leased yet
                block = next_block(last, broker_id=self.broker_id, size=size or self.block_size)
                if self.before_write is not None:
                    self.before_write()
                try:
                    if stat is None:
                        zk.create_node(PRODUCER_ID_BLOCK_ZNODE, encode_block(block))
                        version = 0
                    else:
                        version = zk.set_data(
                            PRODUCER_ID_BLOCK_ZNODE, encode_block(block), stat.version
                        ).version
                except (BadVersionError, NodeExistsError):
                    # Another broker leased a block between our read and write: read again.
                    self.conflicts += 1
                    log.debug("producer-id block %s lost a conditional write; reading again", block)
                    continue
                log.info(
                    "leased producer-id block %s from ZooKeeper %s (znode version %d)",
                    block,
                    PRODUCER_ID_BLOCK_ZNODE,
                    version,
                )
                return block
        except (KazooException, ZooKeeperError) as exc:
            raise ProducerIdBlockError(f"ZooKeeper: {type(exc).__name__} {exc}".strip()) from None
        raise ProducerIdBlockError(
            f"{MAX_CONFLICT_RETRIES} conditional writes in a row lost to other brokers"
        )
