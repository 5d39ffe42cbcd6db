"""Membership of classic groups: JoinGroup, SyncGroup, Heartbeat, LeaveGroup and rebalances.

The half of Kafka's classic ``GroupCoordinator`` (GroupCoordinator.scala, whose
behaviour Kafka 4's ``GroupMetadataManager`` keeps for classic groups) that
moves groups between their states; ``coordinator.groups.GroupCoordinator``
owns it, with the offsets and the storage.

Kafka's purgatories become timer handles on the event loop (``Timers``), one per purpose:

- heartbeat expiry, per member (``DelayedHeartbeat``): session timeout, or
  ``NEW_MEMBER_JOIN_TIMEOUT_MS`` for a new member parked in its first join;
- pending member id expiry (ids handed out with MEMBER_ID_REQUIRED, KIP-394);
- the delayed join of a rebalance (``DelayedJoin``): completes when every known
  member rejoined, or when the rebalance timeout fires; the first rebalance of
  an empty group waits ``group.initial.rebalance.delay.ms`` more per newcomer,
  up to the rebalance timeout (``InitialDelayedJoin``);
- the delayed sync (``DelayedSync``): members that got their JoinGroup answer
  but sent no SyncGroup within the rebalance timeout are removed.

JoinGroup and SyncGroup take a callback (Kafka's ``responseCallback``) that runs
at once, or later from a timer or another member's request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from coordinator.group_metadata import (
    Group,
    GroupState,
    JoinCallback,
    JoinRequest,
    JoinResult,
    Member,
    SyncCallback,
    SyncResult,
)
from coordinator.group_offsets import OFFSETS_TOPIC
from protocol.errors import ErrorCode

log = logging.getLogger(__name__)

NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000  # GroupCoordinator.NewMemberJoinTimeoutMs

S = GroupState


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class Timers(Protocol):
    """Where the coordinator's timers live (the event loop; a manual clock in tests)."""

    def call_later(self, delay_ms: int, fn: Callable[[], None]) -> Cancellable: ...


class LoopTimers:
    """Timers on the running asyncio loop."""

    def call_later(self, delay_ms: int, fn: Callable[[], None]) -> Cancellable:
        return asyncio.get_running_loop().call_later(max(delay_ms, 0) / 1000.0, fn)


def guarded(fn: Callable[..., None], *args: Any) -> Callable[[], None]:
    """A timer callback that logs its exception instead of losing it in the loop."""

    def run() -> None:
        try:
            fn(*args)
        except Exception:
            log.exception("group coordinator timer %s failed", getattr(fn, "__name__", fn))

    return run


@dataclass(slots=True)
class LeaveMember:
    member_id: str
    group_instance_id: str | None = None
    reason: str | None = None


class GroupMembership:
    """Join, sync, heartbeat and leave for the groups in ``groups`` (shared with the coordinator)."""

    def __init__(
        self,
        groups: dict[str, Group],
        *,
        timers: Timers,
        time_ms: Callable[[], int],
        validate_group_status: Callable[..., ErrorCode | None],
        store_group: Callable[[Group, dict[str, bytes], Callable[[ErrorCode], None]], None],
        partition_for: Callable[[str], int],
        initial_rebalance_delay_ms: int,
        min_session_timeout_ms: int,
        max_session_timeout_ms: int,
        max_group_size: int,
    ) -> None:
        self.groups = groups
        self.timers = timers
        self.time_ms = time_ms
        self._validate_group_status = validate_group_status
        self._store_group = store_group
        self.partition_for = partition_for
        self.initial_rebalance_delay_ms = initial_rebalance_delay_ms
        self.min_session_timeout_ms = min_session_timeout_ms
        self.max_session_timeout_ms = max_session_timeout_ms
        self.max_group_size = max_group_size

    def unload(self, group: Group) -> None:
        for member in group.all_members():
            group.maybe_invoke_join_callback(member, JoinResult(ErrorCode.NOT_COORDINATOR, member.member_id))
            group.maybe_invoke_sync_callback(member, SyncResult(ErrorCode.NOT_COORDINATOR))
            self._cancel_heartbeat(member)
        self.cancel_group_timers(group)
        if not group.is_state(S.DEAD):
            group.transition_to(S.DEAD, self.time_ms())

    # ================================================================== JoinGroup

    def join_group(self, req: JoinRequest, callback: JoinCallback) -> None:
        """Kafka's ``handleJoinGroup``: ``callback`` gets the answer, now or when the rebalance ends."""
        error = self._validate_group_status(req.group_id, allow_empty_id=False)
        if error is not None:
            callback(JoinResult(error, req.member_id))
            return
        if not self.min_session_timeout_ms <= req.session_timeout_ms <= self.max_session_timeout_ms:
            callback(JoinResult(ErrorCode.INVALID_SESSION_TIMEOUT, req.member_id))
            return
        is_unknown = req.member_id == ""
        group = self.groups.get(req.group_id)
        if group is None:
            # Only a new member creates a group; a known member id of an unknown group is stale.
            if not is_unknown:
                callback(JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, req.member_id))
                return
            group = self.groups[req.group_id] = Group(req.group_id, S.EMPTY, self.time_ms())
        if not self._accept_joining_member(group, req.member_id):
            removed = group.remove(req.member_id)
            if removed is not None:
                self._cancel_heartbeat(removed)
            callback(JoinResult(ErrorCode.GROUP_MAX_SIZE_REACHED, ""))
        elif group.is_state(S.DEAD):
            # Removed meanwhile: let the member find the coordinator again.
            callback(JoinResult(ErrorCode.COORDINATOR_NOT_AVAILABLE, req.member_id))
        elif not group.supports_protocols(req.protocol_type, {n for n, _ in req.protocols}):
            callback(JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.member_id))
        elif is_unknown:
            self._new_member_join(group, req, callback)
        else:
            self._current_member_join(group, req, callback)
        if group.is_state(S.PREPARING_REBALANCE):
            self._try_complete_join(group)

    def _accept_joining_member(self, group: Group, member_id: str) -> bool:
        """``group.max.size``: new members are refused once the group is full (KIP-389)."""
        if group.state in (S.EMPTY, S.DEAD):
            return True
        if group.is_state(S.PREPARING_REBALANCE):
            return (
                group.has(member_id) and group.get(member_id).is_awaiting_join
            ) or group.num_awaiting_join < self.max_group_size
        return group.has(member_id) or group.size < self.max_group_size

    def _new_member_join(self, group: Group, req: JoinRequest, callback: JoinCallback) -> None:
        new_member_id = group.generate_member_id(req.client_id, req.group_instance_id)
        if req.group_instance_id is not None:
            old_member_id = group.current_static_member_id(req.group_instance_id)
            if old_member_id is not None:
                log.info(
                    "static member %s of group %s rejoins with an unknown member id; %s replaces %s",
                    req.group_instance_id,
                    group.group_id,
                    new_member_id,
                    old_member_id,
                )
                self._update_static_member_and_rebalance(group, old_member_id, new_member_id, req, callback)
                return
        elif req.require_known_member_id:
            # KIP-394: hand out the id and ask the member to join again with it.
            log.debug("group %s: new member gets id %s (MEMBER_ID_REQUIRED)", group.group_id, new_member_id)
            group.pending_members.add(new_member_id)
            self._add_pending_member_expiration(group, new_member_id, req.session_timeout_ms)
            callback(JoinResult(ErrorCode.MEMBER_ID_REQUIRED, new_member_id))
            return
        self._add_member_and_rebalance(group, new_member_id, req, callback)

    def _current_member_join(self, group: Group, req: JoinRequest, callback: JoinCallback) -> None:
        member_id = req.member_id
        if group.is_pending_member(member_id):
            if req.group_instance_id is not None:
                # Pending ids only go to dynamic members; Kafka fails this with an IllegalStateException.
                callback(JoinResult(ErrorCode.UNKNOWN_SERVER_ERROR, member_id))
                return
            self._add_member_and_rebalance(group, member_id, req, callback)
            return
        error = self.validate_current_member(group, member_id, req.group_instance_id)
        if error is not None:
            callback(JoinResult(error, member_id))
            return
        member = group.get(member_id)
        state = group.state
        if state is S.PREPARING_REBALANCE:
            self._update_member_and_rebalance(group, member, req, callback)
        elif state is S.COMPLETING_REBALANCE:
            if member.matches(req.protocols):
                # It probably missed the JoinGroup answer: give it the current generation again.
                callback(self._join_result_for(group, member_id, with_members=group.is_leader(member_id)))
            else:
                self._update_member_and_rebalance(group, member, req, callback)
        elif state is S.STABLE:
            if group.is_leader(member_id) or not member.matches(req.protocols):
                # A leader's join forces a rebalance (e.g. for topic metadata changes); so does
                # a follower with new metadata.
                self._update_member_and_rebalance(group, member, req, callback)
            else:
                callback(self._join_result_for(group, member_id, with_members=False))
        else:
            log.warning("group %s: member %s rejoins in state %s", group.group_id, member_id, state)
            callback(JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member_id))

    def _join_result_for(self, group: Group, member_id: str, *, with_members: bool) -> JoinResult:
        return JoinResult(
            ErrorCode.NONE,
            member_id,
            group.generation_id,
            group.protocol_type,
            group.protocol_name,
            group.leader_id or "",
            False,
            group.current_member_metadata() if with_members else [],
        )

    def validate_current_member(
        self, group: Group, member_id: str, group_instance_id: str | None
    ) -> ErrorCode | None:
        """A static member's instance id must map to this member id (else FENCED_INSTANCE_ID)."""
        if group_instance_id is not None:
            current = group.current_static_member_id(group_instance_id)
            if current is None:
                return ErrorCode.UNKNOWN_MEMBER_ID
            if current != member_id:
                log.info(
                    "group %s: member %s of static instance %s is fenced by %s",
                    group.group_id,
                    member_id,
                    group_instance_id,
                    current,
                )
                return ErrorCode.FENCED_INSTANCE_ID
            return None
        if not group.has(member_id):
            return ErrorCode.UNKNOWN_MEMBER_ID
        return None

    def _add_member_and_rebalance(
        self, group: Group, member_id: str, req: JoinRequest, callback: JoinCallback
    ) -> None:
        member = Member(
            member_id,
            req.group_instance_id,
            req.client_id,
            req.client_host,
            req.rebalance_timeout_ms,
            req.session_timeout_ms,
            req.protocol_type,
            req.protocols,
        )
        member.is_new = True
        # Lets the initial delayed join wait once more for further newcomers.
        if group.is_state(S.PREPARING_REBALANCE) and group.generation_id == 0:
            group.new_member_added = True
        group.add(member, callback)
        pending = group.pending_member_timers.pop(member_id, None)
        if pending is not None:
            pending.cancel()
        # A parked new member cannot heartbeat; if it gave up, its join expires after this.
        self.schedule_heartbeat(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS)
        self._maybe_prepare_rebalance(
            group,
            f"Adding new member {member_id} with group instance id {req.group_instance_id}; "
            f"client reason: {req.reason or 'not provided'}",
        )

    def _update_member_and_rebalance(
        self, group: Group, member: Member, req: JoinRequest, callback: JoinCallback
    ) -> None:
        group.update_member(member, req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms, callback)
        self._maybe_prepare_rebalance(
            group,
            f"Member {member.member_id} rejoins in state {group.state}; "
            f"client reason: {req.reason or 'not provided'}",
        )

    def _update_static_member_and_rebalance(
        self, group: Group, old_member_id: str, new_member_id: str, req: JoinRequest, callback: JoinCallback
    ) -> None:
        """KIP-345: a restarted static member takes over its old member id's place."""
        instance_id = req.group_instance_id
        assert instance_id is not None
        current_leader = group.leader_id
        member = group.replace_static_member(instance_id, old_member_id, new_member_id)
        self.schedule_heartbeat(group, member)
        old = (member.protocols, member.rebalance_timeout_ms, member.session_timeout_ms)
        group.update_member(member, req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms, callback)
        why = f"static member {new_member_id} (instance {instance_id}) joined; client reason: {req.reason}"
        if group.is_state(S.STABLE):
            if group.protocol_name != group.select_protocol():
                self._maybe_prepare_rebalance(group, f"Group's selected protocol changes as {why}")
                return
            # Same protocol for the next generation: no rebalance, just persist the new id
            # (answered once the write is committed, as Kafka's storeGroup callback).

            def on_stored(error: ErrorCode) -> None:
                if error is not ErrorCode.NONE:
                    log.warning(
                        "group %s: cannot persist static member %s (%s); reverting to %s",
                        group.group_id,
                        instance_id,
                        error.name,
                        old_member_id,
                    )
                    group.update_member(member, *old, None)
                    restored = group.replace_static_member(instance_id, new_member_id, old_member_id)
                    self.schedule_heartbeat(group, restored)
                    failed = self._join_result_for(group, "", with_members=False)
                    failed.error, failed.leader_id = error, current_leader or ""
                    callback(failed)
                    return
                if req.support_skip_assignment:
                    # JoinGroup v9 (KIP-814): a static leader learns it leads, without reassigning.
                    is_leader = group.is_leader(new_member_id)
                    result = self._join_result_for(group, new_member_id, with_members=is_leader)
                    result.skip_assignment = is_leader
                else:
                    # Older clients get the old leader id, so a rejoining leader does not assign.
                    result = self._join_result_for(group, new_member_id, with_members=False)
                    result.leader_id = current_leader or ""
                group.maybe_invoke_join_callback(member, result)

            self._store_group(group, group.group_assignment(), on_stored)
        elif group.is_state(S.COMPLETING_REBALANCE):
            # The leader may already be assigning with the old id: start over.
            self._prepare_rebalance(group, f"Updating metadata as {why}")
        # PreparingRebalance: the member simply waits for the join to complete.

    # ================================================================== rebalance

    def _maybe_prepare_rebalance(self, group: Group, reason: str) -> None:
        if group.can_rebalance():
            self._prepare_rebalance(group, reason)

    def _prepare_rebalance(self, group: Group, reason: str) -> None:
        if group.is_state(S.COMPLETING_REBALANCE):
            # Members parked in SyncGroup must rejoin.
            self._reset_and_propagate_assignment_error(group, ErrorCode.REBALANCE_IN_PROGRESS)
        self._remove_sync_expiration(group)
        was_empty = group.is_state(S.EMPTY)
        group.transition_to(S.PREPARING_REBALANCE, self.time_ms())
        log.info(
            "preparing to rebalance group %s with old generation %d (%s-%d) (reason: %s)",
            group.group_id,
            group.generation_id,
            OFFSETS_TOPIC,
            self.partition_for(group.group_id),
            reason,
        )
        if was_empty:
            delay = self.initial_rebalance_delay_ms
            self._schedule_initial_join(group, delay, max(group.rebalance_timeout_ms - delay, 0))
        else:
            self._schedule_join(group, group.rebalance_timeout_ms)

    def _schedule_join(self, group: Group, timeout_ms: int) -> None:
        """``DelayedJoin``: complete now if everyone rejoined, else at the rebalance timeout."""
        self._cancel_join_timer(group)
        if group.has_all_members_joined():
            self._complete_join(group)
            return
        group.join_timer_initial = False
        group.join_timer = self.timers.call_later(timeout_ms, guarded(self._on_join_timeout, group))

    def _schedule_initial_join(self, group: Group, delay_ms: int, remaining_ms: int) -> None:
        """``InitialDelayedJoin``: never completes early; each newcomer buys another delay."""
        self._cancel_join_timer(group)
        group.join_timer_initial = True
        group.join_timer = self.timers.call_later(
            delay_ms, guarded(self._on_initial_join_timeout, group, delay_ms, remaining_ms)
        )

    def _on_join_timeout(self, group: Group) -> None:
        group.join_timer = None
        self._complete_join(group)

    def _on_initial_join_timeout(self, group: Group, delay_ms: int, remaining_ms: int) -> None:
        group.join_timer = None
        if group.new_member_added and remaining_ms != 0:
            group.new_member_added = False
            delay = min(self.initial_rebalance_delay_ms, remaining_ms)
            self._schedule_initial_join(group, delay, max(remaining_ms - delay_ms, 0))
        else:
            self._complete_join(group)

    def _try_complete_join(self, group: Group) -> None:
        if group.join_timer is not None and not group.join_timer_initial and group.has_all_members_joined():
            self._cancel_join_timer(group)
            self._complete_join(group)

    def _cancel_join_timer(self, group: Group) -> None:
        if group.join_timer is not None:
            group.join_timer.cancel()
            group.join_timer = None

    def _complete_join(self, group: Group) -> None:
        """``onCompleteJoin``: drop dynamic members that did not rejoin, start the next generation."""
        for member in group.not_yet_rejoined_members():
            if not member.is_static:
                log.info(
                    "group %s removes dynamic member %s which did not rejoin",
                    group.group_id,
                    member.member_id,
                )
                group.remove(member.member_id)
                self._cancel_heartbeat(member)
        if group.is_state(S.DEAD):
            return
        if not group.maybe_elect_new_joined_leader() and group.members:
            # Only static members that did not rejoin are left: wait for them (or their session timeout).
            log.error("group %s could not complete rebalance because no members rejoined", group.group_id)
            self._schedule_join(group, group.rebalance_timeout_ms)
            return
        group.init_next_generation(self.time_ms())
        if group.is_state(S.EMPTY):
            log.info(
                "group %s with generation %d is now empty (%s-%d)",
                group.group_id,
                group.generation_id,
                OFFSETS_TOPIC,
                self.partition_for(group.group_id),
            )

            def on_empty_stored(error: ErrorCode) -> None:
                if error is not ErrorCode.NONE:
                    # The previous generation may come back after a restart; it has no live members.
                    log.warning("failed to write empty metadata for group %s: %s", group.group_id, error.name)

            self._store_group(group, {}, on_empty_stored)
            return
        log.info(
            "stabilized group %s generation %d (%s-%d) with %d members",
            group.group_id,
            group.generation_id,
            OFFSETS_TOPIC,
            self.partition_for(group.group_id),
            group.size,
        )
        for member in group.all_members():
            is_leader = group.is_leader(member.member_id)
            group.maybe_invoke_join_callback(
                member, self._join_result_for(group, member.member_id, with_members=is_leader)
            )
            self.schedule_heartbeat(group, member)
            member.is_new = False
            group.pending_sync_members.add(member.member_id)
        self._schedule_pending_sync(group)

    # ================================================================== SyncGroup

    def sync_group(
        self,
        group_id: str,
        generation_id: int,
        member_id: str,
        group_instance_id: str | None,
        protocol_type: str | None,
        protocol_name: str | None,
        assignments: dict[str, bytes],
        callback: SyncCallback,
    ) -> None:
        """Kafka's ``handleSyncGroup``: followers wait for the leader's assignment."""
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            # The rebalance state is lost while loading: have the member rejoin (older
            # clients do not expect COORDINATOR_LOAD_IN_PROGRESS here).
            callback(SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
            return
        if error is not None:
            callback(SyncResult(error))
            return
        group = self.groups.get(group_id)
        if group is None:
            callback(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
            return
        if group.is_state(S.DEAD):
            callback(SyncResult(ErrorCode.COORDINATOR_NOT_AVAILABLE))
            return
        error = self.validate_current_member(group, member_id, group_instance_id)
        if error is None and generation_id != group.generation_id:
            error = ErrorCode.ILLEGAL_GENERATION
        if error is None and (
            (protocol_type is not None and protocol_type != group.protocol_type)
            or (protocol_name is not None and protocol_name != group.protocol_name)
        ):
            error = ErrorCode.INCONSISTENT_GROUP_PROTOCOL  # v5+ (KIP-559)
        if error is not None:
            callback(SyncResult(error))
            return
        state = group.state
        if state is S.EMPTY:
            callback(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
        elif state is S.PREPARING_REBALANCE:
            callback(SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
        elif state is S.COMPLETING_REBALANCE:
            group.get(member_id).awaiting_sync = callback
            self._remove_pending_sync_member(group, member_id)
            if group.is_leader(member_id):
                self._complete_sync_from_leader(group, generation_id, member_id, assignments)
        else:  # Stable: hand out the current assignment
            self._remove_pending_sync_member(group, member_id)
            member = group.get(member_id)
            callback(SyncResult(ErrorCode.NONE, group.protocol_type, group.protocol_name, member.assignment))
            self.schedule_heartbeat(group, member)

    def _complete_sync_from_leader(
        self, group: Group, generation_id: int, leader_id: str, assignments: dict[str, bytes]
    ) -> None:
        log.info(
            "assignment received from leader %s for group %s for generation %d; %d members, %d static",
            leader_id,
            group.group_id,
            group.generation_id,
            group.size,
            len(group.static_members),
        )
        missing = [m for m in group.members if m not in assignments]
        if missing:
            log.warning(
                "group %s generation %d: empty assignment for members %s",
                group.group_id,
                group.generation_id,
                missing,
            )
        assignment = {m: assignments.get(m, b"") for m in group.members}

        def on_stored(error: ErrorCode) -> None:
            # Kafka's storeGroup callback: only the generation that wrote it moves on.
            if not (group.is_state(S.COMPLETING_REBALANCE) and generation_id == group.generation_id):
                return
            if error is not ErrorCode.NONE:
                self._reset_and_propagate_assignment_error(group, error)
                self._maybe_prepare_rebalance(
                    group, f"Error {error.name} when storing group assignment during SyncGroup"
                )
                return
            for member in group.all_members():
                member.assignment = assignment[member.member_id]
            self._propagate_assignment(group, ErrorCode.NONE)
            group.transition_to(S.STABLE, self.time_ms())

        self._store_group(group, assignment, on_stored)

    def _reset_and_propagate_assignment_error(self, group: Group, error: ErrorCode) -> None:
        for member in group.all_members():
            member.assignment = b""
        self._propagate_assignment(group, error)

    def _propagate_assignment(self, group: Group, error: ErrorCode) -> None:
        ok = error is ErrorCode.NONE
        ptype, pname = (group.protocol_type, group.protocol_name) if ok else (None, None)
        for member in group.all_members():
            if group.maybe_invoke_sync_callback(member, SyncResult(error, ptype, pname, member.assignment)):
                # Its session may have lapsed while it waited for the leader: restart it.
                self.schedule_heartbeat(group, member)

    def _schedule_pending_sync(self, group: Group) -> None:
        """``DelayedSync``: members that never sync within the rebalance timeout are removed."""
        self._cancel_sync_timer(group)
        group.sync_timer_generation = group.generation_id
        group.sync_timer = self.timers.call_later(
            group.rebalance_timeout_ms, guarded(self._on_sync_timeout, group, group.generation_id)
        )

    def _remove_pending_sync_member(self, group: Group, member_id: str) -> None:
        group.pending_sync_members.discard(member_id)
        self._maybe_complete_sync_expiration(group)

    def _remove_sync_expiration(self, group: Group) -> None:
        group.pending_sync_members.clear()
        self._maybe_complete_sync_expiration(group)

    def _maybe_complete_sync_expiration(self, group: Group) -> None:
        if group.sync_timer is None:
            return
        if (
            group.sync_timer_generation != group.generation_id
            or group.state in (S.DEAD, S.EMPTY, S.PREPARING_REBALANCE)
            or group.has_received_sync_from_all_members()
        ):
            self._cancel_sync_timer(group)

    def _cancel_sync_timer(self, group: Group) -> None:
        if group.sync_timer is not None:
            group.sync_timer.cancel()
            group.sync_timer = None

    def _on_sync_timeout(self, group: Group, generation_id: int) -> None:
        group.sync_timer = None
        if generation_id != group.generation_id or group.state not in (S.COMPLETING_REBALANCE, S.STABLE):
            return
        if group.has_received_sync_from_all_members():
            return
        pending = sorted(group.pending_sync_members)
        for member_id in pending:
            member = group.remove(member_id)
            if member is not None:
                self._cancel_heartbeat(member)
        log.info("group %s removed members %s which did not send SyncGroup in time", group.group_id, pending)
        self._prepare_rebalance(group, f"Removing {pending} on pending sync request expiration")

    # ================================================================== Heartbeat, LeaveGroup

    def heartbeat(
        self, group_id: str, member_id: str, group_instance_id: str | None, generation_id: int
    ) -> ErrorCode:
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            return ErrorCode.NONE  # still loading: answer blindly, as Kafka does
        if error is not None:
            return error
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if group.is_state(S.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        error = self.validate_current_member(group, member_id, group_instance_id)
        if error is not None:
            return error
        if generation_id != group.generation_id:
            return ErrorCode.ILLEGAL_GENERATION
        state = group.state
        if state is S.EMPTY:
            return ErrorCode.UNKNOWN_MEMBER_ID
        self.schedule_heartbeat(group, group.get(member_id))
        if state is S.PREPARING_REBALANCE:
            return ErrorCode.REBALANCE_IN_PROGRESS
        return ErrorCode.NONE

    def leave_group(self, group_id: str, members: Sequence[LeaveMember]) -> tuple[ErrorCode, list[ErrorCode]]:
        """Kafka's ``handleLeaveGroup``: (top-level error, one error per leaving member)."""
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            return error, []
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.NONE, [ErrorCode.UNKNOWN_MEMBER_ID] * len(members)
        if group.is_state(S.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        errors = []
        for leaving in members:
            why = leaving.reason or "not provided"
            if leaving.member_id == "":
                # Administrative removal of a static member by its instance id (KIP-345).
                current = (
                    group.current_static_member_id(leaving.group_instance_id)
                    if leaving.group_instance_id is not None
                    else None
                )
                if current is None:
                    errors.append(ErrorCode.UNKNOWN_MEMBER_ID)
                else:
                    self._remove_leaving_member(group, current, why)
                    errors.append(ErrorCode.NONE)
            elif group.is_pending_member(leaving.member_id):
                self._remove_pending_member(group, leaving.member_id)
                log.info("pending member %s has left group %s", leaving.member_id, group_id)
                errors.append(ErrorCode.NONE)
            else:
                error = self.validate_current_member(group, leaving.member_id, leaving.group_instance_id)
                if error is None:
                    self._remove_leaving_member(group, leaving.member_id, why)
                    errors.append(ErrorCode.NONE)
                else:
                    errors.append(error)
        return ErrorCode.NONE, errors

    def _remove_leaving_member(self, group: Group, member_id: str, reason: str) -> None:
        member = group.get(member_id)
        log.info(
            "member %s has left group %s through LeaveGroup; client reason: %s",
            member,
            group.group_id,
            reason,
        )
        self._remove_member_and_update_group(
            group, member, f"Removing member {member_id} on LeaveGroup; client reason: {reason}"
        )

    def _remove_member_and_update_group(self, group: Group, member: Member, reason: str) -> None:
        # A new member may time out while parked in its join: answer it so it can retry.
        group.maybe_invoke_join_callback(member, JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, ""))
        group.remove(member.member_id)
        self._cancel_heartbeat(member)
        # Not in Kafka, which leaves such a request unanswered: a parked SyncGroup of a
        # removed member gets the answer a retry would get.
        group.maybe_invoke_sync_callback(member, SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
        if group.state in (S.STABLE, S.COMPLETING_REBALANCE):
            self._maybe_prepare_rebalance(group, reason)
        elif group.is_state(S.PREPARING_REBALANCE):
            self._try_complete_join(group)

    def _remove_pending_member(self, group: Group, member_id: str) -> None:
        group.remove(member_id)
        timer = group.pending_member_timers.pop(member_id, None)
        if timer is not None:
            timer.cancel()
        if group.is_state(S.PREPARING_REBALANCE):
            self._try_complete_join(group)

    # ================================================================== timers of members

    def schedule_heartbeat(self, group: Group, member: Member, timeout_ms: int | None = None) -> None:
        """``completeAndScheduleNextExpiration``: the member is alive now; expect it again in time."""
        self._cancel_heartbeat(member)
        delay = member.session_timeout_ms if timeout_ms is None else timeout_ms
        member.heartbeat_timer = self.timers.call_later(
            delay, guarded(self._on_heartbeat_timeout, group, member)
        )

    def _cancel_heartbeat(self, member: Member) -> None:
        if member.heartbeat_timer is not None:
            member.heartbeat_timer.cancel()
            member.heartbeat_timer = None

    def _on_heartbeat_timeout(self, group: Group, member: Member) -> None:
        member.heartbeat_timer = None
        if group.is_state(S.DEAD) or group.members.get(member.member_id) is not member:
            return
        if member.satisfied_by_rebalance():
            return
        log.info(
            "member %s in group %s has failed, removing it from the group", member.member_id, group.group_id
        )
        self._remove_member_and_update_group(
            group, member, f"removing member {member.member_id} on heartbeat expiration"
        )

    def _add_pending_member_expiration(self, group: Group, member_id: str, timeout_ms: int) -> None:
        old = group.pending_member_timers.pop(member_id, None)
        if old is not None:
            old.cancel()
        group.pending_member_timers[member_id] = self.timers.call_later(
            timeout_ms, guarded(self._on_pending_member_timeout, group, member_id)
        )

    def _on_pending_member_timeout(self, group: Group, member_id: str) -> None:
        group.pending_member_timers.pop(member_id, None)
        if group.is_state(S.DEAD) or not group.is_pending_member(member_id):
            return
        log.info("pending member %s in group %s expired after its session timeout", member_id, group.group_id)
        self._remove_pending_member(group, member_id)

    def cancel_group_timers(self, group: Group) -> None:
        self._cancel_join_timer(group)
        self._cancel_sync_timer(group)
        for timer in group.pending_member_timers.values():
            timer.cancel()
        group.pending_member_timers.clear()
        for member in group.all_members():
            self._cancel_heartbeat(member)

    def on_group_loaded(self, group: Group) -> None:
        """Members of a loaded group must heartbeat within their session timeout (``onGroupLoaded``)."""
        if group.size > self.max_group_size:
            self._prepare_rebalance(
                group, f"Freshly-loaded group is over capacity ({self.max_group_size}); rebalancing"
            )
        for member in group.all_members():
            self.schedule_heartbeat(group, member)
