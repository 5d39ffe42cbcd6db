"""JAAS login module configuration, as Kafka's ``sasl.jaas.config`` holds it (``JaasConfig``).

One or more entries ``<LoginModuleClass> <flag> key="value" ...;``: the flag is required,
requisite, sufficient or optional; values are double-quoted (with backslash escapes) or bare
words. Kafka's ``PlainLoginModule`` reads ``username``/``password`` (the broker's own
credentials, for inter-broker SASL) and ``user_<name>="<password>"`` (the users the broker
accepts); ``ScramLoginModule`` reads ``username``/``password``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from storage.config_def import ConfigError

PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_FLAGS = {"required", "requisite", "sufficient", "optional"}
_TOKEN = re.compile(r'\s*(?:(?P<quoted>"(?:\\.|[^"\\])*")|(?P<word>[^\s=;"]+)|(?P<punct>[=;]))')


@dataclass(frozen=True)
class LoginModule:
    name: str
    flag: str
    options: dict[str, str] = field(default_factory=dict)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ConfigError(f"sasl.jaas.config: cannot parse at {text[pos : pos + 20]!r}")
        pos = m.end()
        if m["quoted"] is not None:
            out.append(("value", re.sub(r"\\(.)", r"\1", m["quoted"][1:-1])))
        elif m["word"] is not None:
            out.append(("word", m["word"]))
        else:
            out.append(("punct", m["punct"]))
    return out


def parse_jaas_config(text: str) -> list[LoginModule]:
    """The login modules of a ``sasl.jaas.config`` value; ConfigError if it does not parse."""
    tokens = _tokens(text)
    modules: list[LoginModule] = []
    i = 0
    while i < len(tokens):
        if i + 1 >= len(tokens) or tokens[i][0] != "word" or tokens[i + 1][1] not in _FLAGS:
            raise ConfigError(
                "sasl.jaas.config: expected '<LoginModule> required|optional|... key=\"value\" ...;'"
            )
        name, flag = tokens[i][1], tokens[i + 1][1]
        i += 2
        options: dict[str, str] = {}
        while i < len(tokens) and tokens[i] != ("punct", ";"):
            if i + 2 >= len(tokens) or tokens[i][0] != "word" or tokens[i + 1] != ("punct", "="):
                raise ConfigError(f"sasl.jaas.config: expected key=value in the options of {name}")
            if tokens[i + 2][0] not in ("value", "word"):
                raise ConfigError(f"sasl.jaas.config: no value for {tokens[i][1]} in {name}")
            options[tokens[i][1]] = tokens[i + 2][1]
            i += 3
        if i >= len(tokens):
            raise ConfigError(f"sasl.jaas.config: the entry of {name} does not end with ';'")
        i += 1
        modules.append(LoginModule(name, flag, options))
    if not modules:
        raise ConfigError("sasl.jaas.config: no login module")
    return modules


def single_module(text: str, what: str) -> LoginModule:
    """Kafka's ``JaasContext.loadServerContext`` with a ``sasl.jaas.config``: exactly one module."""
    modules = parse_jaas_config(text)
    if len(modules) != 1:
        raise ConfigError(
            f"{what}: sasl.jaas.config must contain exactly one login module, found {len(modules)}"
        )
    return modules[0]
