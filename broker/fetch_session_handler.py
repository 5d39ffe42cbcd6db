"""The fetcher's side of an incremental fetch session (KIP-227): Kafka's ``FetchSessionHandler``.

A replica fetcher keeps one ``FetchSessionHandler`` for its source broker. Each round it gives
the partitions it wants fetched with their fetch state (``PartitionFetchData``) and gets the
request's session fields and partitions:

- a *full* fetch (epoch 0, INITIAL) names every partition; with a session id it also closes
  that session on the leader (Kafka's ``nextCloseExisting``). The leader answers a new
  session id, or 0 when its cache has no slot: the next fetch is then full again.
- an *incremental* fetch (the session id, the next epoch, wrapping from 2^31-1 to 1 as
  ``FetchMetadata.nextEpoch``) names only the partitions added or whose fetch state changed
  (fetch offset, log start offset, leader epochs, max bytes), and lists those no longer
  wanted in ``forgotten_topics_data``. Its answer leaves out the session's partitions with
  nothing new: for them nothing changed (``FetchAnswer.omitted``).

After FETCH_SESSION_ID_NOT_FOUND the next fetch is full without a session id; after any other
top-level error, a failed send or ``restart`` (a new connection, an answer the fetcher could
not apply) it is full and closes the old session (Kafka's ``handleResponse``/``handleError``).
A session answer of session id 0 ends the session: the next fetch is full.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from protocol.errors import ErrorCode

INVALID_SESSION_ID = 0
INITIAL_EPOCH = 0
_INT32_MAX = 2**31 - 1

TopicPartition = tuple[str, int]


def next_epoch(epoch: int) -> int:
    """Kafka's ``FetchMetadata.nextEpoch`` for a session's epoch: 1, 2, ..., 2^31-1, 1, ..."""
    return 1 if epoch >= _INT32_MAX else epoch + 1


class PartitionFetchData(NamedTuple):
    """What a fetch names for one partition (Kafka's ``FetchRequest.PartitionData``): a change
    to any field makes an incremental fetch name the partition again."""

    fetch_offset: int
    log_start_offset: int
    current_leader_epoch: int
    last_fetched_epoch: int
    max_bytes: int


@dataclass(frozen=True, slots=True)
class FetchRequestData:
    """One fetch's session fields and partitions, as ``FetchSessionHandler.build`` made them."""

    session_id: int
    epoch: int
    to_send: dict[TopicPartition, PartitionFetchData]
    to_forget: list[TopicPartition]
    full: bool


@dataclass(frozen=True, slots=True)
class FetchAnswer:
    """What the handler made of an answer: ``ok`` False for a top-level error (no partitions);
    ``omitted`` the session's partitions the answer left out (nothing new for them)."""

    ok: bool
    session: Mapping[TopicPartition, PartitionFetchData]  # the session's partitions when sent
    response: Any  # the FetchResponse (None after a top-level error)

    @property
    def omitted(self) -> frozenset[TopicPartition]:
        # On demand: a walk over every partition of the session, which the fetch itself
        # (it reads only what the answer names) does not need.
        if self.response is None:
            return frozenset()
        answered = {(t.topic, p.partition_index) for t in self.response.responses for p in t.partitions}
        return frozenset(tp for tp in self.session if tp not in answered)


class FetchSessionHandler:
    """The session a fetcher holds with one broker (Kafka's ``FetchSessionHandler``)."""

    def __init__(self, node: int) -> None:
        self.node = node
        self.session_id = INVALID_SESSION_ID
        self.epoch = INITIAL_EPOCH
        # The partitions (and what was last sent for them) the leader's session holds once
        # the last built request is served (Kafka's ``sessionPartitions``).
        self.session_partitions: dict[TopicPartition, PartitionFetchData] = {}

    def __repr__(self) -> str:
        return f"FetchSessionHandler(node {self.node}, session {self.session_id}, epoch {self.epoch})"

    def build(self, wanted: Mapping[TopicPartition, PartitionFetchData]) -> FetchRequestData:
        """The next fetch for the partitions ``wanted`` this round (Kafka's ``Builder.build``)."""
        full = self.epoch == INITIAL_EPOCH
        if full:
            to_send = dict(wanted)
            to_forget: list[TopicPartition] = []
        else:
            session = self.session_partitions
            to_send = {tp: data for tp, data in wanted.items() if session.get(tp) != data}
            to_forget = [tp for tp in session if tp not in wanted]
        self.session_partitions = dict(wanted)
        return FetchRequestData(self.session_id, self.epoch, to_send, to_forget, full)

    def handle_response(self, request: FetchRequestData, response: Any) -> FetchAnswer:
        """Take the answer to ``request`` (a FetchResponse) into the session's state."""
        error = ErrorCode.for_code(response.error_code)
        if error is not ErrorCode.NONE:
            if error is ErrorCode.FETCH_SESSION_ID_NOT_FOUND:
                self.session_id = INVALID_SESSION_ID  # nothing left to close
            self.epoch = INITIAL_EPOCH
            return FetchAnswer(False, {}, None)
        if response.session_id == INVALID_SESSION_ID:
            # No slot for a new session, or the leader closed it: full fetches from now on.
            self.session_id, self.epoch = INVALID_SESSION_ID, INITIAL_EPOCH
        elif request.full:
            self.session_id, self.epoch = response.session_id, next_epoch(INITIAL_EPOCH)
        else:
            self.epoch = next_epoch(self.epoch)
        return FetchAnswer(True, self.session_partitions, response)

    def restart(self) -> None:
        """The next fetch is full and replaces the session (Kafka's ``handleError``): after a
        failed send, on a new connection, or when an answer could not be applied."""
        self.epoch = INITIAL_EPOCH
