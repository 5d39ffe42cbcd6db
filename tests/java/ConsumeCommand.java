import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@code consume}: read a topic in a consumer group ({@code --group}) or by assignment
 * ({@code --assign [all|0,1,..]}, no group), print every record, commit, and report the
 * committed offsets.
 *
 * <pre>
 * consume --topic T[,T2] (--group G | --assign [all|P,P..]) [--expect N] [--timeout-ms M]
 *         [--commit sync|async|auto|none] [--from earliest|latest] [--seek P=OFFSET]...
 *         [--print records|none] [--max-value-print B] [--stdin-control]
 * </pre>
 *
 * Record lines: {"t":topic,"p":partition,"o":offset,"ts":timestamp,"k":key,"v":value,"h":headers},
 * key/value as UTF-8 text when they decode strictly, else "kh"/"vh" in hex (null stays null).
 * Group mode adds {"event":"assigned"|"revoked"|"lost","partitions":[[t,p],..]} lines as they
 * happen. The last line sums up: count, whether it timed out, the assignment, the committed
 * offsets and the positions ({"T":{"0":offset}}).
 *
 * <p>{@code perf-consume} mirrors kafka-consumer-perf-test.
 */
final class ConsumeCommand {
    private ConsumeCommand() {}

    /** The summary's offset look-ups: the client's own default.api.timeout.ms (60 s), since a
     *  loaded machine can take seconds to answer. */
    private static final Duration API_TIMEOUT = Duration.ofSeconds(60);

    /**
     * {@code --stdin-control} sets the stop flag and then calls {@code wakeup()}, which can land
     * in any blocking call after a poll (a commit, a position or committed look-up), not only in
     * poll. The WakeupException it raises clears the wakeup, so the interrupted call is made
     * again (the stop flag ends the loop).
     */
    private static <T> T throughWakeup(Supplier<T> call) {
        try {
            return call.get();
        } catch (WakeupException e) {
            return call.get();
        }
    }

    private static Properties consumerProperties(Args args) {
        Properties p = args.clientProperties();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, args.choice("from", "earliest", "earliest", "latest"));
        return p;
    }

    static int consume(Args args) throws Exception {
        List<String> topics = List.of(args.required("topic").split(","));
        String group = args.str("group", null);
        String assign = args.has("assign") ? args.str("assign", "all") : null;
        long expect = args.longOpt("expect", 0);
        long timeoutMs = args.longOpt("timeout-ms", 30_000);
        String commit = args.choice("commit", group == null ? "none" : "sync", "sync", "async", "auto", "none");
        Map<String, String> seeks = args.pairs("seek");
        boolean printRecords = args.choice("print", "records", "records", "none").equals("records");
        int maxValuePrint = args.intOpt("max-value-print", -1);
        boolean stdinControl = args.bool("stdin-control", false);
        if ((group == null) == (assign == null)) throw new Args.UsageException("consume needs exactly one of --group or --assign");
        if (group == null && !commit.equals("none")) throw new Args.UsageException("--commit needs --group");
        Properties props = consumerProperties(args);
        if (group != null) props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, Boolean.toString(commit.equals("auto")));
        args.applyExtraProperties(props);
        args.checkAllUsed();

        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        long count = 0;
        boolean timedOut = false;
        List<Object> errors = Json.list();
        Map<String, Object> summary = Json.obj("op", "consume", "topics", topics, "group", group);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            AtomicBoolean stop = stdinControl ? StdinControl.start(consumer::wakeup) : new AtomicBoolean(false);
            if (group != null) {
                consumer.subscribe(topics, new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        Json.emitNow(Json.obj("event", "revoked", "partitions", pairs(partitions)));
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        Json.emitNow(Json.obj("event", "assigned", "partitions", pairs(partitions)));
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        Json.emitNow(Json.obj("event", "lost", "partitions", pairs(partitions)));
                    }
                });
            } else {
                List<TopicPartition> tps = assignment(consumer, topics, assign, deadline);
                consumer.assign(tps);
                for (Map.Entry<String, String> s : seeks.entrySet()) {
                    consumer.seek(new TopicPartition(topics.get(0), Integer.parseInt(s.getKey())), Long.parseLong(s.getValue()));
                }
            }
            HexFormat hex = HexFormat.of();
            while (!stop.get() && (expect <= 0 || count < expect)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    timedOut = expect > 0;
                    break;
                }
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(Duration.ofNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(500))));
                } catch (WakeupException e) {
                    break;
                }
                if (records.isEmpty()) continue;
                if (printRecords) {
                    for (ConsumerRecord<byte[], byte[]> r : records) Json.emit(recordLine(r, hex, maxValuePrint));
                }
                count += records.count();
                Json.flush();
                if (commit.equals("sync")) {
                    try {
                        throughWakeup(() -> {
                            consumer.commitSync();
                            return null;
                        });
                    } catch (RuntimeException e) {
                        errors.add(MoldauClient.errorFields(e));
                    }
                } else if (commit.equals("async")) {
                    consumer.commitAsync((offsets, e) -> {
                        if (e != null) {
                            synchronized (errors) {
                                errors.add(MoldauClient.errorFields(e));
                            }
                        }
                    });
                }
            }
            Set<TopicPartition> assignment = consumer.assignment();
            if (commit.equals("sync") || commit.equals("async")) {
                // A final synchronous commit, as the usual async-commit loop ends.
                try {
                    throughWakeup(() -> {
                        consumer.commitSync();
                        return null;
                    });
                } catch (RuntimeException e) {
                    synchronized (errors) {
                        errors.add(MoldauClient.errorFields(e));
                    }
                }
            }
            summary.put("assignment", pairs(assignment));
            Map<String, Object> positions = new TreeMap<>();
            for (TopicPartition tp : assignment) {
                Object position;
                try {
                    position = throughWakeup(() -> consumer.position(tp, API_TIMEOUT));
                } catch (RuntimeException e) {
                    position = null; // unknown (e.g. the offset lookup kept failing)
                    errors.add(MoldauClient.errorFields(e));
                }
                nested(positions, tp.topic()).put(Integer.toString(tp.partition()), position);
            }
            summary.put("positions", positions);
            if (group != null) {
                Map<String, Object> committed = new TreeMap<>();
                try {
                    Map<TopicPartition, OffsetAndMetadata> found =
                            throughWakeup(() -> consumer.committed(assignment, API_TIMEOUT));
                    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : found.entrySet()) {
                        if (e.getValue() == null) continue;
                        nested(committed, e.getKey().topic()).put(Integer.toString(e.getKey().partition()), e.getValue().offset());
                    }
                } catch (RuntimeException e) {
                    errors.add(MoldauClient.errorFields(e));
                }
                summary.put("committed", committed);
            }
        }
        summary.put("ok", !timedOut && errors.isEmpty());
        summary.put("count", count);
        summary.put("expected", expect);
        summary.put("timed_out", timedOut);
        summary.put("elapsed_ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        summary.put("errors", errors);
        Json.emit(summary);
        return 0;
    }

    /** --assign all: every partition of the topics (waits for their metadata); else a list. */
    private static List<TopicPartition> assignment(KafkaConsumer<byte[], byte[]> consumer, List<String> topics,
                                                   String assign, long deadline) throws InterruptedException {
        List<TopicPartition> tps = new ArrayList<>();
        if (!assign.equals("all") && !assign.equals("true")) {
            for (String p : assign.split(",")) {
                for (String t : topics) tps.add(new TopicPartition(t, Integer.parseInt(p.trim())));
            }
            return tps;
        }
        for (String t : topics) {
            List<PartitionInfo> infos = consumer.partitionsFor(t,
                    Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            for (PartitionInfo pi : infos) tps.add(new TopicPartition(t, pi.partition()));
        }
        return tps;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> nested(Map<String, Object> outer, String key) {
        return (Map<String, Object>) outer.computeIfAbsent(key, x -> new TreeMap<String, Object>());
    }

    static List<Object> pairs(Collection<TopicPartition> partitions) {
        List<Object> out = Json.list();
        List<TopicPartition> sorted = new ArrayList<>(partitions);
        sorted.sort((a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
        for (TopicPartition tp : sorted) out.add(List.of(tp.topic(), tp.partition()));
        return out;
    }

    private static Map<String, Object> recordLine(ConsumerRecord<byte[], byte[]> r, HexFormat hex, int maxValuePrint) {
        Map<String, Object> line = Json.obj("t", r.topic(), "p", r.partition(), "o", r.offset(), "ts", r.timestamp());
        bytesField(line, "k", r.key(), hex, -1);
        bytesField(line, "v", r.value(), hex, maxValuePrint);
        if (r.headers().toArray().length > 0) {
            List<Object> headers = Json.list();
            for (org.apache.kafka.common.header.Header h : r.headers()) {
                Map<String, Object> hl = Json.obj("key", h.key());
                bytesField(hl, "v", h.value(), hex, -1);
                headers.add(hl);
            }
            line.put("h", headers);
        }
        return line;
    }

    /** name: UTF-8 text if the bytes decode strictly, else name + "h": hex. Null stays null. */
    private static void bytesField(Map<String, Object> line, String name, byte[] b, HexFormat hex, int max) {
        if (b == null) {
            line.put(name, null);
            return;
        }
        int len = max >= 0 ? Math.min(max, b.length) : b.length;
        try {
            line.put(name, StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, 0, len)).toString());
        } catch (CharacterCodingException e) {
            line.put(name + "h", hex.formatHex(b, 0, len));
        }
        if (len < b.length) line.put(name + "_len", b.length);
    }

    // ---------------------------------------------------------------- perf-consume

    /**
     * Mirrors org.apache.kafka.tools.ConsumerPerformance: subscribe in a fresh group (or assign),
     * read until --messages records or --timeout-ms without any record, and report MB/s and
     * records/s overall and without the group join ("fetch" figures).
     */
    static int perfConsume(Args args) throws Exception {
        String topic = args.required("topic");
        long messages = args.longOpt("messages", 0);
        long idleTimeoutMs = args.longOpt("timeout-ms", 10_000);
        boolean assign = args.bool("assign", false);
        String group = args.str("group", "perf-consumer-" + ThreadLocalRandom.current().nextInt(100_000));
        if (messages <= 0) throw new Args.UsageException("--messages must be > 0");
        Properties props = consumerProperties(args);
        if (!assign) props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        args.applyExtraProperties(props);
        args.checkAllUsed();

        long records = 0;
        long bytes = 0;
        long start = System.nanoTime();
        long[] joinedAt = {0};
        long lastRecordAt = start;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            if (assign) {
                List<TopicPartition> tps = new ArrayList<>();
                for (PartitionInfo pi : consumer.partitionsFor(topic, Duration.ofMillis(idleTimeoutMs))) {
                    tps.add(new TopicPartition(topic, pi.partition()));
                }
                consumer.assign(tps);
                joinedAt[0] = System.nanoTime();
            } else {
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        if (joinedAt[0] == 0) joinedAt[0] = System.nanoTime();
                    }
                });
            }
            while (records < messages) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                long now = System.nanoTime();
                if (batch.isEmpty()) {
                    if (now - lastRecordAt > TimeUnit.MILLISECONDS.toNanos(idleTimeoutMs)) break;
                    continue;
                }
                lastRecordAt = now;
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    records++;
                    if (r.key() != null) bytes += r.key().length;
                    if (r.value() != null) bytes += r.value().length;
                }
            }
        }
        long end = lastRecordAt;
        double secs = Math.max(1, end - start) / 1e9;
        long joined = joinedAt[0] == 0 ? end : joinedAt[0];
        double fetchSecs = Math.max(1, end - joined) / 1e9;
        double mb = bytes / (1024.0 * 1024.0);
        Json.emit(Json.obj(
                "op", "perf-consume",
                "ok", records >= messages,
                "topic", topic,
                "group", assign ? null : group,
                "records", records,
                "data_consumed_mb", mb,
                "elapsed_ms", TimeUnit.NANOSECONDS.toMillis(end - start),
                "mb_per_sec", mb / secs,
                "records_per_sec", records / secs,
                "rebalance_time_ms", TimeUnit.NANOSECONDS.toMillis(joined - start),
                "fetch_time_ms", TimeUnit.NANOSECONDS.toMillis(end - joined),
                "fetch_mb_per_sec", mb / fetchSecs,
                "fetch_records_per_sec", records / fetchSecs));
        return 0;
    }
}
