"""A hypothesis state machine drives ProducerStateManager against a small reference model.

Clients send next batches, retries of recent and of old batches, gaps, epoch bumps and stale
epochs, some starting near the sequence wrap; the broker takes snapshots, restarts cleanly
(snapshot at the end) or after a crash (older snapshot + replay of the log), loses its newest
snapshot to corruption, and expires silent producers. Every answer must equal the model's.

Beyond the model, two ground truths from the log itself:
- a duplicate answer names a batch really in the log (same producer, epoch, sequences, offset);
- DUPLICATE_SEQUENCE_NUMBER is only given for sequences really written in that epoch (the
  no-data-loss property), except for the documented assumption: after a restart, an epoch
  that did not start at sequence 0 on this partition is assumed to have.
"""

from __future__ import annotations

import copy
import tempfile
from dataclasses import dataclass, field

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import INT32_MAX, BatchHeader
from storage.producer_state import AppendOrigin, ProducerStateManager
from storage.producer_state_entry import DUPLICATE_SEARCH_BOUND, BatchMetadata

M = INT32_MAX + 1
T0 = 1_700_000_000_000
EXPIRATION_MS = 10_000
PIDS = [11, 22]


def seqs(first: int, count: int) -> list[int]:
    return [(first + i) % M for i in range(count)]


# ----------------------------------------------------------------------------- the model


@dataclass
class MBatch:
    first: int
    last: int
    offset: int
    ts: int


@dataclass
class MProducer:
    epoch: int
    cached: list[MBatch] = field(default_factory=list)
    run: int = 0  # sequences known written, unbroken, in this epoch, ending at the last one
    last_ts: int = -1


class Model:
    """Kafka's rules written plainly (see storage/producer_state.py for the reasons)."""

    def __init__(self, window: int, flag: bool) -> None:
        self.window = window
        self.flag = flag
        self.producers: dict[int, MProducer] = {}

    def decide(self, pid: int, epoch: int, first: int, count: int) -> tuple:
        last = (first + count - 1) % M
        p = self.producers.get(pid)
        if p is not None and p.epoch == epoch:
            for b in p.cached:
                if (b.first, b.last) == (first, last):
                    return ("dup", b.offset, b.ts)
        if p is not None and epoch < p.epoch:
            return ("err", ErrorCode.INVALID_PRODUCER_EPOCH)
        if p is None:
            return ("ok",)
        if epoch != p.epoch:
            return ("ok",) if first == 0 else ("err", ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER)
        expected = (p.cached[-1].last + 1) % M if p.cached else 0
        if first == expected:
            return ("ok",)
        if self.flag and p.cached:
            oldest = p.cached[0].first
            span = (p.cached[-1].last - oldest) % M + 1
            known = min(p.run - span, DUPLICATE_SEARCH_BOUND)
            if all(1 <= (oldest - s) % M <= known for s in seqs(first, count)):
                return ("err", ErrorCode.DUPLICATE_SEQUENCE_NUMBER)
        return ("err", ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER)

    def apply(
        self, pid: int, epoch: int, first: int, count: int, offset: int, ts: int, *, replay: bool
    ) -> None:
        last = (first + count - 1) % M
        first_sight = pid not in self.producers
        p = self.producers.setdefault(pid, MProducer(epoch=-1))
        continues = p.epoch == epoch and p.cached and first == (p.cached[-1].last + 1) % M
        if p.epoch != epoch:
            p.epoch, p.cached = epoch, []
        if continues:
            p.run = min(p.run + count, M)
        elif first_sight and replay:
            p.run = last + 1  # rebuilt from the log: assumed to start at 0
        else:
            p.run = count
        p.cached = [*p.cached, MBatch(first, last, offset, ts)][-self.window :]
        p.last_ts = ts

    def expire(self, now: int) -> None:
        self.producers = {pid: p for pid, p in self.producers.items() if now - p.last_ts < EXPIRATION_MS}

    def image(self) -> dict[int, MProducer]:
        return copy.deepcopy(self.producers)

    def load_image(self, image: dict[int, MProducer], now: int) -> None:
        """What a snapshot keeps: the last batch; the run assumed to start at sequence 0."""
        self.producers = {}
        for pid, p in image.items():
            if now - p.last_ts >= EXPIRATION_MS:
                continue
            last = p.cached[-1:]
            self.producers[pid] = MProducer(p.epoch, list(last), last[0].last + 1 if last else 0, p.last_ts)


# ----------------------------------------------------------------------------- the client


@dataclass
class Client:
    pid: int
    epoch: int = 0
    next_seq: int = 0
    sent: list[tuple[int, int, int]] = field(default_factory=list)  # (epoch, first, count) acked


@dataclass
class Logged:
    pid: int
    epoch: int
    first: int
    count: int
    offset: int
    ts: int


def make_header(pid: int, epoch: int, first: int, count: int, ts: int) -> BatchHeader:
    return BatchHeader(0, 49 + count, -1, 2, 0, 0, count - 1, ts, ts, pid, epoch, first, count)


class ProducerStateMachine(RuleBasedStateMachine):
    WINDOW = 5
    FLAG = True

    def __init__(self) -> None:
        super().__init__()
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.now = T0
        self.psm = self._new_manager()
        self.model = Model(self.WINDOW, self.FLAG)
        self.log: list[Logged] = []
        self.clients = {pid: Client(pid) for pid in PIDS}
        self.images: dict[int, dict[int, MProducer]] = {}  # snapshot offset -> model image
        self.last_snap = 0
        self.reloaded_after: int = -1  # log length at the last restart

    def teardown(self) -> None:
        self._tmp.cleanup()

    def _new_manager(self) -> ProducerStateManager:
        return ProducerStateManager(
            self.dir,
            producer_id_expiration_ms=EXPIRATION_MS,
            batch_window=self.WINDOW,
            duplicate_sequence_error=self.FLAG,
            time_ms=lambda: self.now,
        )

    @property
    def end(self) -> int:
        return self.log[-1].offset + self.log[-1].count if self.log else 0

    # ------------------------------------------------------------------------ one append

    def send(self, pid: int, epoch: int, first: int, count: int) -> tuple:
        ts = self.now
        expected = self.model.decide(pid, epoch, first, count)
        h = make_header(pid, epoch, first, count, ts)
        try:
            dup = self.psm.check_append(h, AppendOrigin.CLIENT)
        except KafkaError as exc:
            got: tuple = ("err", exc.error)
        else:
            got = ("ok",) if dup is None else ("dup", dup.first_offset, dup.timestamp)
        assert got == expected, (got, expected, pid, epoch, first, count)
        event(f"answer {got[0]} {got[1].name if got[0] == 'err' else ''}")

        if got[0] == "ok":
            offset = self.end
            self.psm.update(h, offset, ts, AppendOrigin.CLIENT)
            self.psm.update_map_end_offset(offset + count)
            self.model.apply(pid, epoch, first, count, offset, ts, replay=False)
            self.log.append(Logged(pid, epoch, first, count, offset, ts))
        elif got[0] == "dup":
            assert isinstance(dup, BatchMetadata)
            hits = [b for b in self.log if b.offset == dup.first_offset]
            assert hits and (hits[0].pid, hits[0].epoch, hits[0].first, hits[0].count) == (
                pid,
                epoch,
                first,
                count,
            )
        elif got[1] is ErrorCode.DUPLICATE_SEQUENCE_NUMBER:
            self._check_really_written(pid, epoch, first, count)
        return got

    def _check_really_written(self, pid: int, epoch: int, first: int, count: int) -> None:
        batches = [(i, b) for i, b in enumerate(self.log) if (b.pid, b.epoch) == (pid, epoch)]
        assert batches, "46 for an epoch never written"
        # Where the epoch did not start at 0 or had a gap (accepted without state), a restart
        # after that point rebuilds it under the documented "started at 0" assumption.
        expected_first = 0
        for i, b in batches:
            if b.first != expected_first and i < self.reloaded_after:
                return
            expected_first = (b.first + b.count) % M
        written = {s for _, b in batches for s in seqs(b.first, b.count)}
        assert set(seqs(first, count)) <= written, "46 for sequences never written: data loss"

    # ------------------------------------------------------------------------ client rules

    @rule(pid=st.sampled_from(PIDS), count=st.integers(1, 4))
    def send_next(self, pid, count):
        c = self.clients[pid]
        got = self.send(pid, c.epoch, c.next_seq, count)
        if got[0] == "ok":
            c.sent.append((c.epoch, c.next_seq, count))
            c.next_seq = (c.next_seq + count) % M

    @rule(pid=st.sampled_from(PIDS), sizes=st.lists(st.integers(1, 3), min_size=2, max_size=8))
    def send_burst(self, pid, sizes):
        for count in sizes:
            self.send_next(pid, count)

    @precondition(lambda self: any(c.sent for c in self.clients.values()))
    @rule(data=st.data(), back=st.integers(0, 6))
    def retry_recent(self, data, back):
        c = data.draw(st.sampled_from([c for c in self.clients.values() if c.sent]))
        epoch, first, count = c.sent[max(0, len(c.sent) - 1 - back)]
        self.send(c.pid, epoch, first, count)

    @precondition(lambda self: any(len(c.sent) > 6 for c in self.clients.values()))
    @rule(data=st.data())
    def retry_old(self, data):
        c = data.draw(st.sampled_from([c for c in self.clients.values() if len(c.sent) > 6]))
        epoch, first, count = c.sent[data.draw(st.integers(0, len(c.sent) - 7))]
        self.send(c.pid, epoch, first, count)

    @rule(pid=st.sampled_from(PIDS), skip=st.integers(1, 3), count=st.integers(1, 3))
    def send_with_gap(self, pid, skip, count):
        c = self.clients[pid]
        first = (c.next_seq + skip) % M
        if self.send(pid, c.epoch, first, count)[0] == "ok":  # no state here: accepted at any sequence
            c.sent.append((c.epoch, first, count))
            c.next_seq = (first + count) % M

    @rule(pid=st.sampled_from(PIDS), count=st.integers(1, 3))
    def bump_epoch(self, pid, count):
        c = self.clients[pid]
        if self.send(pid, c.epoch + 1, 0, count)[0] == "ok":
            c.epoch += 1
            c.sent.append((c.epoch, 0, count))
            c.next_seq = count

    @rule(pid=st.sampled_from(PIDS))
    def bump_epoch_without_resetting_sequence(self, pid):
        c = self.clients[pid]
        if c.next_seq != 0:
            self.send(pid, c.epoch + 1, c.next_seq, 1)

    @precondition(lambda self: any(c.epoch > 0 for c in self.clients.values()))
    @rule(data=st.data())
    def stale_epoch(self, data):
        c = data.draw(st.sampled_from([c for c in self.clients.values() if c.epoch > 0]))
        self.send(c.pid, c.epoch - 1, c.next_seq, 1)

    @rule(pid=st.sampled_from(PIDS), start=st.sampled_from([0, 7, INT32_MAX - 5, INT32_MAX]))
    def restart_client_sequence(self, pid, start):
        """A client whose state the broker lost (or a new session) going on at ``start``."""
        c = self.clients[pid]
        c.next_seq = start

    # ------------------------------------------------------------------------ broker rules

    @rule()
    def take_snapshot(self):
        path = self.psm.take_snapshot()
        if self.end > self.last_snap:
            assert path is not None and path.name == f"{self.end:020d}.snapshot"
            self.images[self.end] = self.model.image()
            self.last_snap = self.end  # every snapshot is kept (Kafka's: one per segment)
        else:
            assert path is None
        assert self.psm.snapshot_offsets() == sorted(self.images)

    def _restart(self) -> None:
        self.psm = self._new_manager()
        replay_from = self.psm.load(0, self.end)
        valid = {o: img for o, img in self.images.items() if 0 < o <= self.end}
        snap = max(valid, default=0)
        assert replay_from == snap
        self.model.load_image(valid.get(snap, {}), self.now)
        for b in self.log:
            if b.offset >= replay_from:
                h = make_header(b.pid, b.epoch, b.first, b.count, b.ts)
                self.psm.update(h, b.offset, b.ts, AppendOrigin.REPLICATION)
                self.model.apply(b.pid, b.epoch, b.first, b.count, b.offset, b.ts, replay=True)
        self.psm.update_map_end_offset(self.end)
        self.last_snap = snap
        self.reloaded_after = len(self.log)

    @rule()
    def restart_clean(self):
        self.take_snapshot()
        self._restart()

    @rule()
    def restart_after_crash(self):
        self._restart()

    @precondition(lambda self: bool(self.images))
    @rule()
    def corrupt_newest_snapshot_and_restart(self):
        newest = max(self.images)
        path = self.psm.partition_dir / f"{newest:020d}.snapshot"
        raw = bytearray(path.read_bytes())
        raw[-1] ^= 0x5A
        path.write_bytes(bytes(raw))
        del self.images[newest]
        self._restart()

    @rule(ms=st.integers(0, 15_000))
    def advance_clock_and_expire(self, ms):
        self.now += ms
        self.psm.remove_expired_producers(self.now)
        self.model.expire(self.now)

    # ------------------------------------------------------------------------ invariants

    @invariant()
    def state_matches_the_model(self):
        active = self.psm.active_producers()
        assert set(active) == set(self.model.producers)
        for pid, p in self.model.producers.items():
            e = active[pid]
            assert e.producer_epoch == p.epoch
            assert [(b.first_seq, b.last_seq, b.first_offset, b.timestamp) for b in e.batch_metadata] == [
                (b.first, b.last, b.offset, b.ts) for b in p.cached
            ]
            assert e.last_timestamp == p.last_ts
            assert e.run_length == p.run

    @invariant()
    def map_end_is_the_log_end(self):
        assert self.psm.map_end_offset == self.end


def _machine(window: int, flag: bool) -> type[ProducerStateMachine]:
    return type(f"Machine_w{window}_{flag}", (ProducerStateMachine,), {"WINDOW": window, "FLAG": flag})


_SETTINGS = settings(max_examples=80, stateful_step_count=50, deadline=None)

TestDefaultWindow = _machine(5, True).TestCase
TestDefaultWindow.settings = _SETTINGS
TestKafkaBehaviour = _machine(5, False).TestCase
TestKafkaBehaviour.settings = _SETTINGS
TestWindowOfOne = _machine(1, True).TestCase
TestWindowOfOne.settings = _SETTINGS
TestWideWindow = _machine(8, True).TestCase
TestWideWindow.settings = _SETTINGS
