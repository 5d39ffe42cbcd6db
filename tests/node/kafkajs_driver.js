// KafkaJS test driver (tests/support/kafkajs_client.py runs it).
//
// Usage: node kafkajs_driver.js '<json command>'; kafkajs is found through NODE_PATH.
// The command is {"command", "brokers", "timeoutMs", ...its arguments}. Output: one JSON
// object per line on stdout: records {"p", "o", "k", "v"}, events {"event", ...}; a failure
// prints {"error", "type", "retriable"} and exits 1. KafkaJS's own logs go to stderr.
"use strict";

const { Kafka, CompressionTypes, logLevel } = require("kafkajs");

const spec = JSON.parse(process.argv[2]);
const deadline = Date.now() + (spec.timeoutMs || 60000);

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

// KafkaJS logs to stdout by default: keep stdout for the JSON lines.
const toStderr = () => ({ namespace, level, label, log }) => {
  const { message, ...extra } = log;
  process.stderr.write(`${label} [${namespace}] ${message} ${JSON.stringify(extra)}\n`);
};

const kafka = new Kafka({
  clientId: spec.clientId || "moldau-kafkajs",
  brokers: spec.brokers,
  logLevel: process.env.MOLDAU_KAFKAJS_DEBUG ? logLevel.DEBUG : logLevel.WARN,
  logCreator: toStderr,
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function toMessages(messages) {
  return messages.map((m) => {
    const out = { key: m.key ?? null, value: m.value };
    if (m.partition !== undefined) out.partition = m.partition;
    return out;
  });
}

function recordOf(partition, message) {
  return {
    p: partition,
    o: Number(message.offset),
    k: message.key === null ? null : message.key.toString(),
    v: message.value === null ? null : message.value.toString(),
  };
}

async function createTopic() {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const created = await admin.createTopics({
      topics: [{ topic: spec.topic, numPartitions: spec.partitions, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    const metadata = await admin.fetchTopicMetadata({ topics: [spec.topic] });
    emit({ event: "created", created, partitions: metadata.topics[0].partitions.length });
  } finally {
    await admin.disconnect();
  }
}

async function produce() {
  const producer = kafka.producer();
  await producer.connect();
  try {
    const compression = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP }[spec.compression || "none"];
    // One send per `sendSize` messages (all at once by default): small record batches.
    const size = spec.sendSize || spec.messages.length;
    const batches = [];
    for (let i = 0; i < spec.messages.length; i += size) {
      const metadata = await producer.send({
        topic: spec.topic,
        messages: toMessages(spec.messages.slice(i, i + size)),
        acks: -1,
        compression,
      });
      batches.push(...metadata.map((m) => ({ p: m.partition, error: m.errorCode, base: m.baseOffset })));
    }
    emit({ event: "produced", batches });
  } finally {
    await producer.disconnect();
  }
}

async function transactions() {
  const producer = kafka.producer({ transactionalId: spec.transactionalId, maxInFlightRequests: 1, idempotent: true });
  await producer.connect();
  try {
    for (const step of spec.steps) {
      const txn = await producer.transaction();
      await txn.send({ topic: spec.topic, messages: toMessages(step.messages), acks: -1 });
      if (step.end === "commit") await txn.commit();
      else await txn.abort();
      emit({ event: "transaction", end: step.end, count: step.messages.length });
    }
  } finally {
    await producer.disconnect();
  }
}

// Runs until `expect` records were seen and then `idleMs` passed without another one.
async function consume() {
  const consumer = kafka.consumer({
    groupId: spec.groupId,
    readUncommitted: !!spec.readUncommitted,
    maxWaitTimeInMs: 200,
  });
  await consumer.connect();
  let seen = 0;
  let last = Date.now();
  // A crash KafkaJS does not restart from ends the wait (and the command) at once.
  let crash = null;
  consumer.on(consumer.events.CRASH, (e) => {
    emit({ event: "crash", error: String(e.payload.error), restart: e.payload.restart });
    if (!e.payload.restart) crash = e.payload.error;
  });
  try {
    await consumer.subscribe({ topics: [spec.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: spec.autoCommit !== false,
      eachMessage: async ({ partition, message }) => {
        emit(recordOf(partition, message));
        seen += 1;
        last = Date.now();
      },
    });
    while (crash === null && Date.now() < deadline && !(seen >= spec.expect && Date.now() - last >= spec.idleMs)) {
      await sleep(50);
    }
  } finally {
    await consumer.disconnect(); // commits what was consumed (autoCommit)
  }
  if (crash !== null) throw crash;
  emit({ event: "consumed", count: seen, timedOut: seen < spec.expect });
}

// Consume-transform-produce: each fetched batch is copied in one transaction with its
// source offsets (transaction.sendOffsets); every abortEvery-th batch is aborted and re-read.
async function copyExactlyOnce() {
  const producer = kafka.producer({ transactionalId: spec.transactionalId, maxInFlightRequests: 1, idempotent: true });
  // Small fetches (a few record batches each), so there are many transactions.
  const consumer = kafka.consumer({
    groupId: spec.groupId,
    readUncommitted: false,
    maxWaitTimeInMs: 200,
    maxBytesPerPartition: spec.maxBytesPerPartition,
  });
  await producer.connect();
  await consumer.connect();
  let copied = 0;
  let batches = 0;
  let aborted = 0;
  let failure = null;
  try {
    await consumer.subscribe({ topics: [spec.source], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        const messages = batch.messages;
        if (messages.length === 0 || !isRunning() || isStale() || copied >= spec.total) return;
        batches += 1;
        const first = messages[0].offset;
        const lastOffset = messages[messages.length - 1].offset;
        const txn = await producer.transaction();
        try {
          await txn.send({
            topic: spec.sink,
            messages: messages.map((m) => ({ key: m.key, value: "copied:" + m.value.toString() })),
          });
          await txn.sendOffsets({
            consumerGroupId: spec.groupId,
            topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: (BigInt(lastOffset) + 1n).toString() }] }],
          });
          if (batches % spec.abortEvery === 0) {
            await txn.abort();
            aborted += 1;
            emit({ event: "batch", p: batch.partition, first: Number(first), n: messages.length, end: "abort" });
            consumer.seek({ topic: batch.topic, partition: batch.partition, offset: first });
            return;
          }
          await txn.commit();
        } catch (e) {
          failure = failure || e;
          await txn.abort().catch(() => {});
          throw e;
        }
        copied += messages.length;
        emit({ event: "batch", p: batch.partition, first: Number(first), n: messages.length, end: "commit" });
        resolveOffset(lastOffset);
        await heartbeat();
      },
    });
    while (Date.now() < deadline && copied < spec.total && failure === null) {
      await sleep(50);
    }
  } finally {
    await consumer.disconnect();
    await producer.disconnect();
  }
  if (failure !== null) throw failure;
  emit({ event: "copied", copied, batches, aborted, timedOut: copied < spec.total });
}

// A read_committed consumer and an open transaction: records after the transaction's first
// offset (its own and a plain producer's) stay invisible until it commits.
async function openTransaction() {
  const txnProducer = kafka.producer({ transactionalId: spec.transactionalId, maxInFlightRequests: 1, idempotent: true });
  const plain = kafka.producer();
  const consumer = kafka.consumer({ groupId: spec.groupId, readUncommitted: false, maxWaitTimeInMs: 200 });
  await Promise.all([txnProducer.connect(), plain.connect(), consumer.connect()]);
  let seen = 0;
  try {
    await plain.send({ topic: spec.topic, messages: [{ value: "before" }], acks: -1 });
    const txn = await txnProducer.transaction();
    await txn.send({ topic: spec.topic, messages: spec.transactional.map((value) => ({ value })) });
    await plain.send({ topic: spec.topic, messages: spec.plain.map((value) => ({ value })), acks: -1 });
    await consumer.subscribe({ topics: [spec.topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        emit(recordOf(partition, message));
        seen += 1;
      },
    });
    const until = Date.now() + spec.openMs;
    while (Date.now() < until) await sleep(50);
    emit({ event: "open", seen });
    await txn.commit();
    const total = 1 + spec.transactional.length + spec.plain.length;
    while (Date.now() < deadline && seen < total) await sleep(50);
    emit({ event: "committed", seen });
  } finally {
    await consumer.disconnect();
    await plain.disconnect();
    await txnProducer.disconnect();
  }
}

// Two producers with one transactional id: the second's init fences the first, whose commit
// then fails; the second commits its own transaction.
async function fence() {
  const options = { transactionalId: spec.transactionalId, maxInFlightRequests: 1, idempotent: true };
  const first = kafka.producer(options);
  const second = kafka.producer(options);
  await first.connect();
  try {
    const old = await first.transaction();
    await old.send({ topic: spec.topic, messages: [{ value: "fenced" }] });
    await second.connect();
    const txn = await second.transaction(); // InitProducerId: a new epoch
    let error = null;
    try {
      await old.commit();
    } catch (e) {
      error = { name: e.name, type: e.type || null, message: e.message };
    }
    emit({ event: "fenced", error });
    await txn.send({ topic: spec.topic, messages: [{ value: "winner" }] });
    await txn.commit();
    emit({ event: "committed" });
  } finally {
    await first.disconnect().catch(() => {});
    await second.disconnect();
  }
}

// Two consumers of one group in one process: each reports its assignment after joining;
// they consume until `expect` records were seen in all and `idleMs` passed.
async function groupOfTwo() {
  const consumers = [0, 1].map(() => kafka.consumer({ groupId: spec.groupId, maxWaitTimeInMs: 200 }));
  let seen = 0;
  let last = Date.now();
  const assignments = [null, null];
  try {
    for (const [i, consumer] of consumers.entries()) {
      consumer.on(consumer.events.GROUP_JOIN, (e) => {
        assignments[i] = e.payload.memberAssignment[spec.topic] || [];
        emit({ event: "join", member: i, assignment: assignments[i] });
      });
      await consumer.connect();
      await consumer.subscribe({ topics: [spec.topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          emit({ member: i, ...recordOf(partition, message) });
          seen += 1;
          last = Date.now();
        },
      });
    }
    const stable = () => assignments.every((a) => a !== null && a.length > 0);
    while (Date.now() < deadline && !(stable() && seen >= spec.expect && Date.now() - last >= spec.idleMs)) {
      await sleep(50);
    }
    const admin = kafka.admin();
    await admin.connect();
    const described = await admin.describeGroups([spec.groupId]);
    await admin.disconnect();
    const group = described.groups[0];
    emit({
      event: "group",
      state: group.state,
      protocol: group.protocol,
      members: group.members.length,
      assignments,
    });
  } finally {
    for (const consumer of consumers) await consumer.disconnect();
  }
}

async function fetchOffsets() {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const answer = await admin.fetchOffsets({ groupId: spec.groupId, topics: [spec.topic] });
    emit({ event: "offsets", partitions: answer[0].partitions });
  } finally {
    await admin.disconnect();
  }
}

const commands = {
  "create-topic": createTopic,
  produce,
  transactions,
  consume,
  "copy-exactly-once": copyExactlyOnce,
  "fetch-offsets": fetchOffsets,
  fence,
  "open-transaction": openTransaction,
  "group-of-two": groupOfTwo,
};

const run = commands[spec.command];
if (!run) {
  emit({ error: `unknown command ${spec.command}`, type: "usage" });
  process.exit(2);
}
run().then(
  () => process.exit(0),
  (e) => {
    emit({ error: String(e && e.message), type: e && e.name, retriable: !!(e && e.retriable) });
    process.stderr.write(String(e && e.stack) + "\n");
    process.exit(1);
  },
);
