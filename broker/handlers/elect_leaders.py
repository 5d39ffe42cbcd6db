"""ElectLeaders (key 43), versions 0-2: elect the preferred (or, KIP-460, any live) replica as leader.

Behaviour (Kafka's ``KafkaApis.handleElectLeaders``, ``ReplicaManager.electLeaders``,
``DelayedElectLeader``; ZK_CLUSTER_FACTS §8):
- ``TopicPartitions`` null means every partition in this broker's metadata; duplicates
  count once (Kafka takes a set). Results are grouped by topic in request order.
- ZooKeeper mode: the partitions go to this broker's ``KafkaController`` (an event of its
  queue; a plain ZooKeeper-mode Kafka does not forward). On a broker that is not the
  active controller every partition gets NOT_CONTROLLER (41), also when the request asked
  for all of them (they are this broker's view). The controller answers per partition
  UNKNOWN_TOPIC_OR_PARTITION ("The partition does not exist."), INVALID_TOPIC_EXCEPTION
  (topic being deleted), ELECTION_NOT_NEEDED (the preferred replica already leads; for
  UNCLEAN: the leader is alive), PREFERRED_LEADER_NOT_AVAILABLE /
  ELIGIBLE_LEADERS_NOT_AVAILABLE when no replica can be elected, or success. A success
  then waits (a ``DelayedElectLeader`` in the replica manager's purgatory, completed by
  UpdateMetadata) until this broker's metadata shows the new leadership: a newer leader
  epoch with a leader (for PREFERRED: the first replica). Partitions still waiting
  ``TimeoutMs`` after the request arrived get REQUEST_TIMED_OUT (7); a timeout of 0 or
  less waits for nothing. Kafka waits for the expected leader id, which its controller
  returns; Moldau's controller returns no id, so the new epoch stands for it.
- Embedded mode (no ZooKeeper: this broker leads every partition, its only replica):
  an existing partition needs no election (ELECTION_NOT_NEEDED, for both types, as
  Kafka's controller answers a partition whose preferred replica leads and is alive);
  any other is UNKNOWN_TOPIC_OR_PARTITION.
- With ``TopicPartitions`` null, ELECTION_NOT_NEEDED results are left out of the answer.
- An ``ElectionType`` other than 0 or 1 fails the request as Kafka's
  ``ElectionType.valueOf`` does: UNKNOWN_SERVER_ERROR at the top and for every listed
  partition, with no message (``getErrorResponse``).

Version notes: v0 has no ElectionType (always PREFERRED) and no top-level ErrorCode;
v1 adds both (KIP-460); v2 is flexible.

Authorization: Alter on the cluster, else CLUSTER_AUTHORIZATION_FAILED at the top and for
every listed partition.

Not implemented: throttling (ThrottleTimeMs is always 0).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence

from broker.handlers import RequestContext, handler, zookeeper_mode
from broker.metadata_cache import MetadataCache
from broker.purgatory import DelayedOperation
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.zk_election import ElectionType, TopicPartition
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, ElectLeadersRequest, ElectLeadersResponse

Result = tuple[ErrorCode, str | None]

NOT_FOUND = "The partition does not exist."  # KafkaController.processReplicaLeaderElection
NOT_NEEDED = "Leader election not needed for topic partition."  # ElectionNotNeededException's default


class DelayedElectLeader(DelayedOperation):
    """Kafka's ``DelayedElectLeader``: waits until this broker's metadata shows each elected
    partition's new leadership; those still waiting at the deadline time out."""

    def __init__(
        self,
        delay_ms: int,
        waiting: dict[TopicPartition, int],
        election_type: ElectionType,
        metadata_cache: MetadataCache,
    ) -> None:
        super().__init__(delay_ms)
        self.waiting = waiting  # partition -> the leader epoch this broker knew before the election
        self.election_type = election_type
        self.metadata_cache = metadata_cache
        self.results: dict[TopicPartition, Result] = {}

    def _update_waiting(self) -> None:
        for tp, epoch_before in list(self.waiting.items()):
            state = self.metadata_cache.partition_state(*tp)
            if (
                state is not None
                and state.leader_epoch > epoch_before
                and state.leader >= 0
                and (self.election_type is ElectionType.UNCLEAN or state.replicas[:1] == (state.leader,))
            ):
                del self.waiting[tp]
                self.results[tp] = (ErrorCode.NONE, None)

    def try_complete(self) -> bool:
        self._update_waiting()
        return not self.waiting and self.force_complete()

    def on_complete(self) -> None:
        self._update_waiting()
        for tp in self.waiting:
            self.results[tp] = (ErrorCode.REQUEST_TIMED_OUT, None)


def _requested(request: ElectLeadersRequest) -> list[TopicPartition] | None:
    if request.topic_partitions is None:
        return None
    return list(dict.fromkeys((t.topic, p) for t in request.topic_partitions for p in t.partitions))


def _all_partitions(cache: MetadataCache) -> list[TopicPartition]:
    return [(topic, s.partition) for topic in cache.topic_names() for s in cache.partition_states(topic)]


def _response(results: Iterable[tuple[TopicPartition, Result]], top: ErrorCode) -> ElectLeadersResponse:
    by_topic: dict[str, list[ElectLeadersResponse.PartitionResult]] = {}
    for (topic, partition), (error, message) in results:
        by_topic.setdefault(topic, []).append(
            ElectLeadersResponse.PartitionResult(
                partition_id=partition, error_code=error.code, error_message=message
            )
        )
    return ElectLeadersResponse(
        error_code=top.code,
        replica_election_results=[
            ElectLeadersResponse.ReplicaElectionResult(topic=topic, partition_result=parts)
            for topic, parts in by_topic.items()
        ],
    )


def _embedded_results(
    cache: MetadataCache, partitions: Sequence[TopicPartition]
) -> dict[TopicPartition, Result]:
    return {
        tp: (ErrorCode.ELECTION_NOT_NEEDED, NOT_NEEDED)
        if cache.partition_state(*tp) is not None
        else (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, NOT_FOUND)
        for tp in partitions
    }


async def _controller_results(
    ctx: RequestContext, election_type: ElectionType, partitions: Sequence[TopicPartition], deadline: float
) -> dict[TopicPartition, Result]:
    """``ReplicaManager.electLeaders``: the controller's results, successes once visible here."""
    cache = ctx.broker.metadata_cache
    epochs_before = {
        tp: (s.leader_epoch if (s := cache.partition_state(*tp)) is not None else -1) for tp in partitions
    }
    results: dict[TopicPartition, Result] = dict(
        await ctx.broker.kafka_controller.elect_leaders(election_type, list(partitions))
    )
    elected = {tp: epochs_before.get(tp, -1) for tp, (error, _) in results.items() if error is ErrorCode.NONE}
    if not elected:
        return results
    loop = asyncio.get_running_loop()
    delay_ms = max(0, int((deadline - loop.time()) * 1000))
    delayed = DelayedElectLeader(delay_ms, elected, election_type, cache)
    purgatory = ctx.broker.replica_manager.elect_leader_purgatory
    if not purgatory.try_complete_else_watch(delayed, list(elected)):
        await delayed.future
    results.update(delayed.results)
    return results


@handler(ApiKey.ELECT_LEADERS, versions=(0, 2))
async def handle_elect_leaders(ctx: RequestContext, request: ElectLeadersRequest) -> ElectLeadersResponse:
    deadline = asyncio.get_running_loop().time() + request.timeout_ms / 1000
    requested = _requested(request)
    try:
        election_type = ElectionType(request.election_type if ctx.api_version >= 1 else 0)
    except ValueError:
        # ElectionType.valueOf throws; KafkaApis answers getErrorResponse(UNKNOWN_SERVER_ERROR).
        failed = (ErrorCode.UNKNOWN_SERVER_ERROR, None)
        return _response(((tp, failed) for tp in requested or ()), ErrorCode.UNKNOWN_SERVER_ERROR)
    if not ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER):
        denied = (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, None)
        return _response(((tp, denied) for tp in requested or ()), ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    cache = ctx.broker.metadata_cache
    partitions = _all_partitions(cache) if requested is None else requested
    if zookeeper_mode(ctx.broker):
        results = await _controller_results(ctx, election_type, partitions, deadline)
    else:
        results = _embedded_results(cache, partitions)
    ordered = [(tp, results[tp]) for tp in partitions if tp in results]
    if requested is None:
        # KafkaApis.handleElectLeaders: an election over all partitions reports only those
        # that were elected or failed.
        ordered = [(tp, r) for tp, r in ordered if r[0] is not ErrorCode.ELECTION_NOT_NEEDED]
    return _response(ordered, ErrorCode.NONE)
