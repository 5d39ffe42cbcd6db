import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code produce}: keyed records whose value says who sent it and in which order, so a checker
 * can prove exactly-once and per-partition order from the log alone.
 *
 * <p>Record n (0-based) has key {@code k<n % keys>} and value
 * {@code m1|<instance>|<key index>|<seq>|} padded with '.' to {@code --value-size} bytes (never
 * shorter than that header), where seq = n / keys is the per-key sequence number and instance is
 * this producer run's random id (or {@code --instance}). With {@code --keys 0} records have no
 * key, key index "-" and seq = n. With {@code --headers H} each record carries H headers
 * {@code h<i>} = {@code <key index>:<seq>:<i>} (i = 0..H-1).
 *
 * <pre>
 * produce --topic T --count N [--value-size B] [--keys K] [--partition P] [--instance ID]
 *         [--acks all|1|0|-1] [--idempotence true|false] [--compression none|gzip|snappy|lz4|zstd]
 *         [--max-in-flight 5] [--linger-ms L] [--batch-size S] [--retries R]
 *         [--delivery-timeout-ms D] [--request-timeout-ms R] [--throughput RECORDS_PER_SEC]
 *         [--progress-every N] [--print-acks] [--stdin-control] [--headers H]
 * </pre>
 *
 * Output: optional {"event":"progress"} / {"event":"ack"} lines, then one summary line with the
 * acked offsets per partition as ranges [[first,last],...] in ack order, and error samples.
 *
 * <p>{@code perf-produce} mirrors kafka-producer-perf-test: unkeyed records of random upper-case
 * letters, latency percentiles, records/s and MB/s.
 */
final class ProduceCommand {
    private ProduceCommand() {}

    static final String VALUE_MAGIC = "m1";

    private static Properties producerProperties(Args args) {
        Properties p = args.clientProperties();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, args.choice("acks", "all", "all", "-1", "1", "0"));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(args.bool("idempotence", true)));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG,
                args.choice("compression", "none", "none", "gzip", "snappy", "lz4", "zstd"));
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, args.str("max-in-flight", "5"));
        putIfSet(args, p, "linger-ms", ProducerConfig.LINGER_MS_CONFIG);
        putIfSet(args, p, "batch-size", ProducerConfig.BATCH_SIZE_CONFIG);
        putIfSet(args, p, "retries", ProducerConfig.RETRIES_CONFIG);
        putIfSet(args, p, "delivery-timeout-ms", ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG);
        putIfSet(args, p, "request-timeout-ms", ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
        return p;
    }

    private static void putIfSet(Args args, Properties p, String option, String config) {
        String v = args.str(option, null);
        if (v != null) p.put(config, v);
    }

    /**
     * Acked offsets of one partition, compressed into ranges of consecutive offsets. With
     * acks=0 the client learns no offsets: those acks are only counted.
     */
    private static final class PartitionAcks {
        final List<long[]> ranges = new ArrayList<>();
        long count;

        void add(long offset) {
            count++;
            if (offset < 0) return;
            if (!ranges.isEmpty()) {
                long[] last = ranges.get(ranges.size() - 1);
                if (last[1] + 1 == offset) {
                    last[1] = offset;
                    return;
                }
            }
            ranges.add(new long[] {offset, offset});
        }
    }

    static int produce(Args args) throws Exception {
        String topic = args.required("topic");
        long count = args.longOpt("count", 0);
        int valueSize = args.intOpt("value-size", 32);
        int keys = args.intOpt("keys", 16);
        int fixedPartition = args.intOpt("partition", -1);
        int headerCount = args.intOpt("headers", 0);
        String instance = args.str("instance", String.format("%08x", ThreadLocalRandom.current().nextInt()));
        long throughput = args.longOpt("throughput", -1);
        long progressEvery = args.longOpt("progress-every", 0);
        boolean printAcks = args.bool("print-acks", false);
        boolean stdinControl = args.bool("stdin-control", false);
        if (instance.contains("|")) throw new Args.UsageException("--instance must not contain '|'");
        if (count <= 0 && !stdinControl) throw new Args.UsageException("--count must be > 0 (or use --stdin-control)");
        Properties props = producerProperties(args);
        args.applyExtraProperties(props);
        args.checkAllUsed();

        AtomicBoolean stop = stdinControl ? StdinControl.start(null) : new AtomicBoolean(false);
        Object lock = new Object();
        Map<Integer, PartitionAcks> acks = new TreeMap<>();
        List<Object> errorSamples = Json.list();
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        Throttle throttle = new Throttle(throughput);
        long start = System.nanoTime();
        long sent = 0;
        Map<String, Object> errorCounts = new TreeMap<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long n = 0; (count <= 0 || n < count) && !stop.get(); n++) {
                String keyIndex = keys > 0 ? Long.toString(n % keys) : "-";
                long seq = keys > 0 ? n / keys : n;
                byte[] key = keys > 0 ? ("k" + keyIndex).getBytes(StandardCharsets.UTF_8) : null;
                byte[] value = value(instance, keyIndex, seq, valueSize);
                ProducerRecord<byte[], byte[]> record = fixedPartition >= 0
                        ? new ProducerRecord<>(topic, fixedPartition, key, value)
                        : new ProducerRecord<>(topic, key, value);
                for (int h = 0; h < headerCount; h++) {
                    record.headers().add("h" + h, (keyIndex + ":" + seq + ":" + h).getBytes(StandardCharsets.UTF_8));
                }
                final String k = keyIndex;
                final long s = seq;
                // send() may both call the callback with an error and then throw: count once.
                final boolean[] reported = {false};
                try {
                    producer.send(record, (md, e) -> {
                        reported[0] = true;
                        if (e != null) {
                            long f = failed.incrementAndGet();
                            synchronized (lock) {
                                Map<String, Object> err = MoldauClient.errorFields(e);
                                errorCounts.merge((String) err.get("error"), 1L, (a, b) -> (Long) a + (Long) b);
                                if (errorSamples.size() < 20) {
                                    err.put("key", k);
                                    err.put("seq", s);
                                    errorSamples.add(err);
                                }
                            }
                            if (progressEvery > 0 && (acked.get() + f) % progressEvery == 0) progress(acked.get(), f);
                            return;
                        }
                        long a = acked.incrementAndGet();
                        synchronized (lock) {
                            acks.computeIfAbsent(md.partition(), x -> new PartitionAcks()).add(md.hasOffset() ? md.offset() : -1);
                        }
                        if (printAcks) {
                            Json.emit(Json.obj("event", "ack", "key", k, "seq", s, "partition", md.partition(),
                                    "offset", md.hasOffset() ? md.offset() : -1));
                        }
                        if (progressEvery > 0 && (a + failed.get()) % progressEvery == 0) progress(a, failed.get());
                    });
                } catch (RuntimeException e) {
                    // send() itself throws for e.g. a metadata timeout (max.block.ms) or a
                    // producer in a fatal error state.
                    if (!reported[0]) failed.incrementAndGet();
                    synchronized (lock) {
                        Map<String, Object> err = MoldauClient.errorFields(e);
                        errorCounts.merge((String) err.get("error"), 1L, (a, b) -> (Long) a + (Long) b);
                        if (errorSamples.size() < 20) errorSamples.add(err);
                    }
                }
                sent++;
                throttle.maybeSleep(sent, System.nanoTime() - start);
            }
            producer.flush();
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Map<String, Object> partitions = new TreeMap<>();
        synchronized (lock) {
            for (Map.Entry<Integer, PartitionAcks> e : acks.entrySet()) {
                partitions.put(e.getKey().toString(), Json.obj("acked", e.getValue().count, "ranges", e.getValue().ranges));
            }
        }
        Json.emit(Json.obj(
                "op", "produce",
                "ok", failed.get() == 0 && acked.get() == sent,
                "topic", topic,
                "instance", instance,
                "keys", keys,
                "sent", sent,
                "acked", acked.get(),
                "failed", failed.get(),
                "elapsed_ms", elapsedMs,
                "partitions", partitions,
                "error_counts", errorCounts,
                "errors", errorSamples));
        return 0;
    }

    private static void progress(long acked, long failed) {
        Json.emitNow(Json.obj("event", "progress", "acked", acked, "failed", failed));
    }

    static byte[] value(String instance, String keyIndex, long seq, int size) {
        byte[] header = (VALUE_MAGIC + "|" + instance + "|" + keyIndex + "|" + seq + "|").getBytes(StandardCharsets.US_ASCII);
        if (header.length >= size) return header;
        byte[] v = Arrays.copyOf(header, size);
        Arrays.fill(v, header.length, size, (byte) '.');
        return v;
    }

    /** Kafka's ThroughputThrottler in short: sleep whenever we are ahead of the target rate. */
    static final class Throttle {
        private final long perSec;

        Throttle(long perSec) {
            this.perSec = perSec;
        }

        void maybeSleep(long sent, long elapsedNs) throws InterruptedException {
            if (perSec <= 0) return;
            long dueNs = sent * 1_000_000_000L / perSec;
            long aheadNs = dueNs - elapsedNs;
            if (aheadNs > 2_000_000L) TimeUnit.NANOSECONDS.sleep(aheadNs);
        }
    }

    // ---------------------------------------------------------------- perf-produce

    /**
     * Mirrors org.apache.kafka.tools.ProducerPerformance: a fixed random payload of upper-case
     * letters, unkeyed records (sticky partitioner), latency sampled per record.
     */
    static int perfProduce(Args args) throws Exception {
        String topic = args.required("topic");
        long numRecords = args.longOpt("num-records", 0);
        int recordSize = args.intOpt("record-size", 100);
        long throughput = args.longOpt("throughput", -1);
        long reportIntervalMs = args.longOpt("report-interval-ms", 0);
        if (numRecords <= 0) throw new Args.UsageException("--num-records must be > 0");
        Properties props = producerProperties(args);
        args.applyExtraProperties(props);
        args.checkAllUsed();

        byte[] payload = new byte[recordSize];
        Random random = new Random(0);
        for (int i = 0; i < payload.length; i++) payload[i] = (byte) (random.nextInt(26) + 65);

        // ProducerPerformance keeps about 500k latency samples.
        int sampleEvery = (int) Math.max(1, numRecords / 500_000);
        int[] latencies = new int[(int) (numRecords / sampleEvery) + 1];
        AtomicLong completed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong latencySum = new AtomicLong();
        AtomicLong maxLatency = new AtomicLong();
        Object lock = new Object();
        List<Object> errorSamples = Json.list();
        Throttle throttle = new Throttle(throughput);
        long start = System.nanoTime();
        long[] window = {start, 0};
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long i = 0; i < numRecords; i++) {
                long sendNs = System.nanoTime();
                final long index = i;
                producer.send(new ProducerRecord<>(topic, payload), (md, e) -> {
                    long now = System.nanoTime();
                    int latencyMs = (int) TimeUnit.NANOSECONDS.toMillis(now - sendNs);
                    if (e != null) {
                        failed.incrementAndGet();
                        synchronized (lock) {
                            if (errorSamples.size() < 10) errorSamples.add(MoldauClient.errorFields(e));
                        }
                    } else {
                        latencySum.addAndGet(latencyMs);
                        maxLatency.accumulateAndGet(latencyMs, Math::max);
                        if (index % sampleEvery == 0) latencies[(int) (index / sampleEvery)] = latencyMs;
                    }
                    long c = completed.incrementAndGet();
                    if (reportIntervalMs > 0) {
                        synchronized (window) {
                            if (now - window[0] >= reportIntervalMs * 1_000_000L) {
                                double secs = (now - window[0]) / 1e9;
                                long n = c - window[1];
                                Json.emitNow(Json.obj("event", "window", "records", n,
                                        "records_per_sec", n / secs, "mb_per_sec", n * (double) recordSize / secs / (1024 * 1024)));
                                window[0] = now;
                                window[1] = c;
                            }
                        }
                    }
                });
                throttle.maybeSleep(i + 1, System.nanoTime() - start);
            }
            producer.flush();
        }
        long elapsedNs = System.nanoTime() - start;
        double secs = elapsedNs / 1e9;
        long ok = completed.get() - failed.get();
        int samples = (int) Math.min(latencies.length, (numRecords + sampleEvery - 1) / sampleEvery);
        int[] sorted = Arrays.copyOf(latencies, samples);
        Arrays.sort(sorted);
        Json.emit(Json.obj(
                "op", "perf-produce",
                "ok", failed.get() == 0,
                "topic", topic,
                "records", numRecords,
                "record_size", recordSize,
                "acked", ok,
                "failed", failed.get(),
                "elapsed_ms", TimeUnit.NANOSECONDS.toMillis(elapsedNs),
                "records_per_sec", numRecords / secs,
                "mb_per_sec", numRecords * (double) recordSize / secs / (1024 * 1024),
                "avg_latency_ms", ok == 0 ? null : latencySum.get() / (double) ok,
                "max_latency_ms", maxLatency.get(),
                "p50_ms", percentile(sorted, 0.5),
                "p95_ms", percentile(sorted, 0.95),
                "p99_ms", percentile(sorted, 0.99),
                "p999_ms", percentile(sorted, 0.999),
                "errors", errorSamples));
        return 0;
    }

    private static Object percentile(int[] sorted, double p) {
        if (sorted.length == 0) return null;
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}
