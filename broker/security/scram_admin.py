"""DescribeUserScramCredentials and AlterUserScramCredentials (KIP-554), as Kafka's
``ZkAdminManager.describeUserScramCredentials`` / ``alterUserScramCredentials`` answer them:
per-user results with Kafka's error codes and messages, credentials read from and written to
the credential store (ZooKeeper ``/config/users/<user>`` or the local file), and the
broker's cache updated at once (other brokers follow the change notification).

An upsertion carries the salt and the salted password (the client ran PBKDF2); the broker
derives StoredKey and ServerKey from it (``ScramFormatter.generateCredential``), so the
password itself never reaches the broker.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from broker.security.manager import BrokerSecurity
from broker.security.scram import MECHANISMS_BY_TYPE, ScramCredential
from protocol.errors import ErrorCode
from protocol.messages import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
)

USERNAME_EMPTY = "Username must not be empty"
DESCRIBE_MISSING = "Attempt to describe a user credential that does not exist"
UNKNOWN_MECHANISM = "Unknown SCRAM mechanism"
MAX_ITERATIONS = 16384

DescribeResult = DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult
CredentialInfo = DescribeUserScramCredentialsResponse.CredentialInfo
AlterResult = AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult


def _naming(message: str, user: str) -> str:
    """Kafka's message naming the user, the name shortened so the message stays a Kafka string."""
    shown = user if len(user) <= 1000 else user[:1000] + "..."
    return f"{message}: {shown}"


def _infos(creds: dict[str, ScramCredential]) -> list:
    return [
        CredentialInfo(mechanism=m.wire_type, iterations=creds[m.name].iterations)
        for m in MECHANISMS_BY_TYPE.values()
        if m.name in creds
    ]


async def describe_user_scram_credentials(
    security: BrokerSecurity, request: DescribeUserScramCredentialsRequest
) -> DescribeUserScramCredentialsResponse:
    store = security.store
    loop = asyncio.get_running_loop()
    if not request.users:  # null or empty: every user that has a credential, sorted
        everyone = await loop.run_in_executor(None, store.read_all)
        results = [
            DescribeResult(user=user, error_message=None, credential_infos=_infos(everyone[user]))
            for user in sorted(everyone)
        ]
        return DescribeUserScramCredentialsResponse(error_message=None, results=results)
    names = [u.name for u in request.users]
    counts = Counter(names)
    results = []
    for user in dict.fromkeys(names):  # one result per user, in request order
        if not user:
            results.append(
                DescribeResult(
                    user=user, error_code=ErrorCode.RESOURCE_NOT_FOUND.code, error_message=USERNAME_EMPTY
                )
            )
        elif counts[user] > 1:
            results.append(
                DescribeResult(
                    user=user,
                    error_code=ErrorCode.DUPLICATE_RESOURCE.code,
                    error_message=_naming(
                        "Cannot describe SCRAM credentials for the same user twice in a single request", user
                    ),
                )
            )
        else:
            creds = await loop.run_in_executor(None, store.read_user, user)
            if creds:
                results.append(DescribeResult(user=user, error_message=None, credential_infos=_infos(creds)))
            else:
                results.append(
                    DescribeResult(
                        user=user,
                        error_code=ErrorCode.RESOURCE_NOT_FOUND.code,
                        error_message=_naming(DESCRIBE_MISSING, user),
                    )
                )
    return DescribeUserScramCredentialsResponse(error_message=None, results=results)


async def alter_user_scram_credentials(
    security: BrokerSecurity, request: AlterUserScramCredentialsRequest
) -> AlterUserScramCredentialsResponse:
    results: list = []
    errors: dict[str, tuple[ErrorCode, str]] = {}
    for d in request.deletions:
        if not d.name:
            errors[d.name] = (ErrorCode.UNACCEPTABLE_CREDENTIAL, USERNAME_EMPTY)
        elif d.mechanism not in MECHANISMS_BY_TYPE:
            errors[d.name] = (ErrorCode.UNSUPPORTED_SASL_MECHANISM, UNKNOWN_MECHANISM)
    for u in request.upsertions:
        if not u.name:
            errors[u.name] = (ErrorCode.UNACCEPTABLE_CREDENTIAL, USERNAME_EMPTY)
        elif u.mechanism not in MECHANISMS_BY_TYPE:
            errors[u.name] = (ErrorCode.UNSUPPORTED_SASL_MECHANISM, UNKNOWN_MECHANISM)
        elif u.iterations < MECHANISMS_BY_TYPE[u.mechanism].min_iterations:
            errors[u.name] = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations")
        elif u.iterations > MAX_ITERATIONS:
            errors[u.name] = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations")
    for user, (code, message) in errors.items():
        results.append(AlterResult(user=user, error_code=code.code, error_message=message))
    pairs = [(d.name, d.mechanism) for d in request.deletions if d.name not in errors] + [
        (u.name, u.mechanism) for u in request.upsertions if u.name not in errors
    ]
    duplicated = {user for (user, _), n in Counter(pairs).items() if n > 1}
    for user in dict.fromkeys(u for u, _ in pairs if u in duplicated):
        results.append(
            AlterResult(
                user=user,
                error_code=ErrorCode.DUPLICATE_RESOURCE.code,
                error_message="A user credential cannot be altered twice in the same request",
            )
        )
    users = list(dict.fromkeys(u for u, _ in pairs if u not in duplicated))
    loop = asyncio.get_running_loop()
    current = {user: await loop.run_in_executor(None, security.store.read_user, user) for user in users}
    for user in users:
        creds = dict(current[user])
        deletions = [MECHANISMS_BY_TYPE[d.mechanism].name for d in request.deletions if d.name == user]
        if any(name not in creds for name in deletions):
            results.append(
                AlterResult(
                    user=user,
                    error_code=ErrorCode.RESOURCE_NOT_FOUND.code,
                    error_message="Attempt to delete a user credential that does not exist",
                )
            )
            continue
        for name in deletions:
            del creds[name]
        for u in request.upsertions:
            if u.name == user:
                mechanism = MECHANISMS_BY_TYPE[u.mechanism]
                creds[mechanism.name] = ScramCredential.from_salted_password(
                    mechanism, bytes(u.salted_password), bytes(u.salt), u.iterations
                )
        try:
            await security.write_user(user, creds)
        except Exception as exc:  # the store failed (ZooKeeper away, disk error)
            results.append(
                AlterResult(user=user, error_code=ErrorCode.UNKNOWN_SERVER_ERROR.code, error_message=str(exc))
            )
            continue
        results.append(AlterResult(user=user, error_code=ErrorCode.NONE.code, error_message=None))
    return AlterUserScramCredentialsResponse(results=results)
