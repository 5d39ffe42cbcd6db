import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Transactions with the Java client.
 *
 * <pre>
 * txn-produce --topic T --transactional-id ID --transactions N --records-per-txn K --abort-every A
 *     every A-th transaction (1-based) is aborted, the others committed; values "i-j".
 *     Summary: {"op":"txn-produce","committed":[values],"aborted":[values]}
 * txn-copy --input T --output T2 --group G --transactional-id ID --expect N [--abort-every A]
 *          [--timeout-ms M]
 *     consume-transform-produce: each poll's records are copied (value "copied:"+value, same key
 *     and partition) in one transaction with sendOffsetsToTransaction; every A-th transaction is
 *     aborted and the consumer rewound to the batch's first offsets, as applications do.
 *     Summary: {"op":"txn-copy","copied":N,"commits":C,"aborts":A}
 * txn-fence --topic T --transactional-id ID
 *     a first producer opens a transaction, a second with the same id initializes (fencing it)
 *     and commits; the first's commit then fails. Summary: {"op":"txn-fence","fenced_error":class}
 * </pre>
 */
final class TxnCommand {
    private TxnCommand() {}

    /** The client properties with --property overrides (read before checkAllUsed). */
    private static Properties base(Args args) {
        Properties p = args.clientProperties();
        args.applyExtraProperties(p);
        return p;
    }

    private static KafkaProducer<byte[], byte[]> producer(Properties base, String transactionalId) {
        Properties p = new Properties();
        p.putAll(base);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return new KafkaProducer<>(p);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static int produce(Args args) {
        String topic = args.required("topic");
        String txnId = args.required("transactional-id");
        int transactions = args.intOpt("transactions", 10);
        int perTxn = args.intOpt("records-per-txn", 5);
        int abortEvery = args.intOpt("abort-every", 2);
        Properties base = base(args);
        args.checkAllUsed();
        List<Object> committed = Json.list();
        List<Object> aborted = Json.list();
        try (KafkaProducer<byte[], byte[]> producer = producer(base, txnId)) {
            producer.initTransactions();
            for (int i = 0; i < transactions; i++) {
                producer.beginTransaction();
                List<String> values = new ArrayList<>();
                for (int j = 0; j < perTxn; j++) {
                    String v = i + "-" + j;
                    values.add(v);
                    producer.send(new ProducerRecord<>(topic, utf8("k" + j), utf8(v)));
                }
                if (abortEvery > 0 && (i + 1) % abortEvery == 0) {
                    producer.flush();  // written, then aborted (unsent records would just be dropped)
                    producer.abortTransaction();
                    aborted.addAll(values);
                } else {
                    producer.commitTransaction();
                    committed.addAll(values);
                }
            }
        }
        Json.emitNow(Json.obj("op", "txn-produce", "ok", true, "committed", committed, "aborted", aborted));
        return 0;
    }

    static int copy(Args args) {
        String input = args.required("input");
        String output = args.required("output");
        String group = args.required("group");
        String txnId = args.required("transactional-id");
        long expect = args.longOpt("expect", 0);
        int abortEvery = args.intOpt("abort-every", 0);
        long timeoutMs = args.longOpt("timeout-ms", 60_000);
        Properties base = base(args);
        Properties cp = new Properties();
        cp.putAll(base);
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        args.checkAllUsed();
        long copied = 0;
        int commits = 0;
        int aborts = 0;
        int txns = 0;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp);
                KafkaProducer<byte[], byte[]> producer = producer(base, txnId)) {
            producer.initTransactions();
            consumer.subscribe(List.of(input));
            while (copied < expect && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) continue;
                producer.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                Map<TopicPartition, Long> firsts = new HashMap<>();
                int n = 0;
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    byte[] value = r.value() == null ? null : utf8("copied:" + new String(r.value(), StandardCharsets.UTF_8));
                    producer.send(new ProducerRecord<>(output, r.partition(), r.key(), value));
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    firsts.putIfAbsent(tp, r.offset());
                    offsets.put(tp, new OffsetAndMetadata(r.offset() + 1));
                    n++;
                }
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                txns++;
                if (abortEvery > 0 && txns % abortEvery == 0) {
                    producer.abortTransaction();
                    aborts++;
                    for (Map.Entry<TopicPartition, Long> e : firsts.entrySet()) consumer.seek(e.getKey(), e.getValue());
                } else {
                    producer.commitTransaction();
                    commits++;
                    copied += n;
                }
            }
        }
        Json.emitNow(Json.obj("op", "txn-copy", "ok", copied >= expect, "copied", copied, "commits", commits, "aborts", aborts));
        return copied >= expect ? 0 : 1;
    }

    static int fence(Args args) {
        String topic = args.required("topic");
        String txnId = args.required("transactional-id");
        Properties base = base(args);
        args.checkAllUsed();
        String fencedError = null;
        try (KafkaProducer<byte[], byte[]> first = producer(base, txnId)) {
            first.initTransactions();
            first.beginTransaction();
            first.send(new ProducerRecord<>(topic, utf8("k"), utf8("fenced")));
            first.flush();
            try (KafkaProducer<byte[], byte[]> second = producer(base, txnId)) {
                second.initTransactions();
                second.beginTransaction();
                second.send(new ProducerRecord<>(topic, utf8("k"), utf8("winner")));
                second.commitTransaction();
            }
            try {
                first.commitTransaction();
            } catch (Exception e) {
                fencedError = MoldauClient.unwrap(e).getClass().getSimpleName();
            }
        } catch (Exception e) {
            fencedError = fencedError != null ? fencedError : "close:" + MoldauClient.unwrap(e).getClass().getSimpleName();
        }
        Json.emitNow(Json.obj("op", "txn-fence", "ok", fencedError != null, "fenced_error", fencedError));
        return 0;
    }
}
