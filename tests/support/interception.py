"""Request interception for in-process test clusters: see ``broker/testing/interception.py``.

The controls, verdicts and link cuts live in the package (the pytest plugin shipped
with it uses them too); this module keeps the names the suite imports.
"""

from __future__ import annotations

from broker.testing.interception import (
    BROKER_CLIENT_ID,
    PASS,
    BrokerInterceptor,
    BrokerTraffic,
    Close,
    Control,
    ControlFn,
    Delay,
    Drop,
    DropResponse,
    Gate,
    InterceptedRequest,
    Network,
    Pass,
    Replace,
    Respond,
    Transform,
    Verdict,
    apply_verdict,
    broker_client_id,
    source_broker,
)

__all__ = [
    "BROKER_CLIENT_ID",
    "PASS",
    "BrokerInterceptor",
    "BrokerTraffic",
    "Close",
    "Control",
    "ControlFn",
    "Delay",
    "Drop",
    "DropResponse",
    "Gate",
    "InterceptedRequest",
    "Network",
    "Pass",
    "Replace",
    "Respond",
    "Transform",
    "Verdict",
    "apply_verdict",
    "broker_client_id",
    "source_broker",
]
