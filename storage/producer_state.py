"""Idempotent producer state per partition (Kafka's ProducerStateManager).

This first part only defines ``AppendOrigin``, which the batch validator needs;
the producer state itself (ProducerStateEntry, BatchMetadata, the append rules
and ``.snapshot`` files) follows in this module.
"""

from __future__ import annotations

from enum import Enum


class AppendOrigin(Enum):
    """Who appends a batch (Kafka's ``AppendOrigin``); it sets how strict validation is.

    CLIENT: a produce request. REPLICATION: a follower copying the leader, or log
    replay on recovery (no sequence validation, stale epochs only warned about).
    COORDINATOR: the group or transaction coordinator writing its own records.
    """

    CLIENT = "client"
    REPLICATION = "replication"
    COORDINATOR = "coordinator"
