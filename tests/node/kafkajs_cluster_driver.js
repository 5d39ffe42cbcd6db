// KafkaJS against a Moldau cluster (tests/support/kafkajs_session.py): one JSON command (argv[2]); JSON lines out.
// Control lines ("go", "stop") may be written to stdin by the Python side.
"use strict";

const { Kafka, logLevel } = require("kafkajs");
const readline = require("readline");

const spec = JSON.parse(process.argv[2]);
const deadline = Date.now() + (spec.timeoutMs || 60000);

const replacer = (k, v) => (typeof v === "bigint" ? v.toString() : v && v.type === "Buffer" ? Buffer.from(v.data).toString() : v);
function emit(obj) {
  process.stdout.write(JSON.stringify(obj, replacer) + "\n");
}
const toStderr = () => ({ namespace, level, label, log }) => {
  const { message, ...extra } = log;
  process.stderr.write(`${new Date().toISOString()} ${label} [${namespace}] ${message} ${JSON.stringify(extra)}\n`);
};
const kafka = new Kafka({
  clientId: spec.clientId || "moldau-kafkajs-cluster",
  brokers: spec.brokers,
  logLevel: process.env.MOLDAU_KAFKAJS_DEBUG ? logLevel.DEBUG : logLevel.WARN,
  logCreator: toStderr,
  retry: spec.retry || { retries: 30, initialRetryTime: 200, maxRetryTime: 2000 },
  requestTimeout: spec.requestTimeout || 10000,
  connectionTimeout: 3000,
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// stdin control lines
const controls = [];
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => controls.push(line.trim()));
async function waitControl(word) {
  while (Date.now() < deadline) {
    const i = controls.indexOf(word);
    if (i >= 0) {
      controls.splice(i, 1);
      return;
    }
    await sleep(20);
  }
  throw new Error(`no control ${word} before the deadline`);
}

function describeError(e) {
  const out = { name: e && e.name, type: (e && e.type) || null, message: String(e && e.message), retriable: !!(e && e.retriable) };
  if (e && e.originalError) out.original = describeError(e.originalError);
  if (e && e.errors) out.errors = e.errors.map(describeError);
  if (e && e.partitions) out.partitions = e.partitions.map((p) => ({ partition: p.partition, offset: p.offset, error: p.error && describeError(p.error) }));
  if (e && e.topic) out.topic = e.topic;
  if (e && e.groups) out.groups = e.groups.map((g) => ({ groupId: g.groupId, errorCode: g.errorCode, error: g.error && describeError(g.error) }));
  return out;
}

// ------------------------------------------------------------ admin operations
async function adminOps() {
  const admin = kafka.admin({ retry: spec.retry });
  await admin.connect();
  // a low-level cluster, to send requests to a chosen broker
  const sym = Object.getOwnPropertySymbols(kafka).find((s) => String(s).includes("createCluster"));
  const cluster = kafka[sym]({ allowAutoTopicCreation: false });
  await cluster.connect();
  await cluster.refreshMetadata();
  const consumers = [];
  try {
    for (const [i, step] of spec.ops.entries()) {
      try {
        let result;
        if (step.broker !== undefined) {
          await cluster.refreshMetadata();
          const broker = await cluster.findBroker({ nodeId: String(step.broker) });
          result = await broker[step.op](step.args);
        } else if (step.op === "produce") {
          const producer = kafka.producer();
          await producer.connect();
          result = await producer.send(step.args);
          await producer.disconnect();
        } else if (step.op === "startConsumer") {
          const consumer = kafka.consumer({ groupId: step.args.groupId, maxWaitTimeInMs: 200 });
          await consumer.connect();
          await consumer.subscribe({ topics: [step.args.topic], fromBeginning: true });
          let n = 0;
          await consumer.run({ eachMessage: async () => { n += 1; } });
          while (n < step.args.expect && Date.now() < deadline) await sleep(50);
          consumers.push(consumer);
          result = n;
        } else if (step.op === "stopConsumers") {
          for (const c of consumers.splice(0)) await c.disconnect();
          result = true;
        } else if (step.op === "controller") {
          await cluster.refreshMetadata();
          result = cluster.brokerPool.metadata.controllerId;
        } else {
          result = await admin[step.op](...(step.argList || [step.args]));
        }
        emit({ event: "result", i, op: step.op, result: result === undefined ? null : result });
      } catch (e) {
        emit({ event: "error", i, op: step.op, error: describeError(e) });
      }
    }
  } finally {
    await cluster.disconnect();
    await admin.disconnect();
  }
}

// ------------------------------------------------------------ idempotent producer
async function idemProduce() {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: spec.maxInFlight || 1, retry: spec.retry });
  await producer.connect();
  let n = 0;
  try {
    for (let s = 0; s < spec.sends; s++) {
      const messages = [];
      for (let j = 0; j < spec.sendSize; j++) messages.push({ value: `v${String(n + j).padStart(6, "0")}`, partition: 0 });
      try {
        const md = await producer.send({ topic: spec.topic, messages, acks: -1, timeout: 10000 });
        emit({ event: "acked", first: n, n: messages.length, base: md[0].baseOffset, error: md[0].errorCode });
      } catch (e) {
        emit({ event: "send-failed", first: n, n: messages.length, error: describeError(e) });
      }
      n += messages.length;
      if (spec.pauseAt && s + 1 === spec.pauseAt) {
        emit({ event: "paused", sent: n });
        await waitControl("go");
      }
    }
    emit({ event: "done", sent: n });
  } finally {
    await producer.disconnect();
  }
}

// ------------------------------------------------------------ consumer group of two
async function group() {
  const consumers = [0, 1].map(() =>
    kafka.consumer({ groupId: spec.groupId, maxWaitTimeInMs: 200, sessionTimeout: spec.sessionTimeout || 10000, heartbeatInterval: 1000, retry: spec.retry })
  );
  const crashes = [];
  try {
    for (const [i, consumer] of consumers.entries()) {
      consumer.on(consumer.events.GROUP_JOIN, (e) => emit({ event: "join", member: i, assignment: e.payload.memberAssignment[spec.topic] || [] }));
      consumer.on(consumer.events.CRASH, (e) => {
        emit({ event: "crash", member: i, error: String(e.payload.error), restart: e.payload.restart });
        if (!e.payload.restart) crashes.push(e.payload.error);
      });
      await consumer.connect();
      await consumer.subscribe({ topics: [spec.topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          emit({ member: i, p: partition, o: Number(message.offset), v: message.value.toString() });
        },
      });
    }
    while (Date.now() < deadline && crashes.length === 0) {
      if (controls.includes("stop")) break;
      await sleep(50);
    }
  } finally {
    for (const c of consumers) await c.disconnect().catch((e) => emit({ event: "disconnect-error", error: describeError(e) }));
  }
  emit({ event: "stopped", crashes: crashes.map(String) });
}

// ------------------------------------------------------------ transactional producer
async function txn() {
  const producer = kafka.producer({ transactionalId: spec.transactionalId, idempotent: true, maxInFlightRequests: 1, retry: spec.retry });
  await producer.connect();
  try {
    const t = await producer.transaction();
    await t.send({ topic: spec.topic, messages: spec.first.map((value) => ({ value, partition: 0 })), acks: -1 });
    emit({ event: "sent-first" });
    await waitControl("go");
    try {
      await t.send({ topic: spec.topic, messages: spec.second.map((value) => ({ value, partition: 0 })), acks: -1 });
      emit({ event: "sent-second" });
      await t.commit();
      emit({ event: "committed" });
    } catch (e) {
      emit({ event: "txn-error", error: describeError(e) });
      try {
        await t.abort();
        emit({ event: "aborted" });
      } catch (e2) {
        emit({ event: "abort-error", error: describeError(e2) });
      }
    }
    // a next transaction on the same producer
    const t2 = await producer.transaction();
    await t2.send({ topic: spec.topic, messages: spec.third.map((value) => ({ value, partition: 0 })), acks: -1 });
    await t2.commit();
    emit({ event: "committed-third" });
  } finally {
    await producer.disconnect();
  }
}

const commands = { "admin-ops": adminOps, "idem-produce": idemProduce, group, txn };
commands[spec.command]().then(
  () => process.exit(0),
  (e) => {
    emit({ error: String(e && e.message), type: e && e.name, detail: describeError(e) });
    process.stderr.write(String(e && e.stack) + "\n");
    process.exit(1);
  }
);
