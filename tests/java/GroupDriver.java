import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;

import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Review driver: consumers that poll continuously in their own threads; stdin commands
 * (tab separated), one JSON answer per line.
 *   start NAME GROUP TOPIC ASSIGNOR INSTANCE(or "") [prop=value ...]
 *   drain NAME          -> {"events": [...]} everything seen since the last drain
 *   commit NAME         -> commitSync of the current positions (in the consumer thread)
 *   commit-async NAME   -> commitAsync (result shows up as an event)
 *   pause-polling NAME / resume-polling NAME
 *   close NAME
 * Events: {"t":"poll","gen":..,"member":..,"recs":[[p,o],...]} only when records came or
 * gen/member changed; {"t":"assigned"|"revoked"|"lost","parts":[...],"gen":..};
 * {"t":"commit","ok":..,"error":..,"offsets":{p:o}}; {"t":"error",...}.
 */
public final class GroupDriver {
    static final class C {
        final String name;
        final KafkaConsumer<byte[], byte[]> consumer;
        final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
        final List<Map<String, Object>> events = new ArrayList<>();
        volatile boolean running = true;
        volatile boolean polling = true;
        volatile long commitEveryMs = 0;
        long lastCommit = 0;
        int lastGen = -2;
        String lastMember = null;
        Thread thread;

        C(String name, KafkaConsumer<byte[], byte[]> c) { this.name = name; this.consumer = c; }

        synchronized void add(Map<String, Object> e) { e.put("ms", System.currentTimeMillis()); events.add(e); }

        synchronized List<Object> drain() {
            List<Object> l = Json.list();
            l.addAll(events);
            events.clear();
            return l;
        }

        <T> T call(Callable<T> fn) throws Exception {
            CompletableFuture<T> f = new CompletableFuture<>();
            tasks.add(() -> {
                try { f.complete(fn.call()); } catch (Throwable t) { f.completeExceptionally(t); }
            });
            return f.get(120, TimeUnit.SECONDS);
        }
    }

    static final Map<String, C> CONSUMERS = new ConcurrentHashMap<>();
    static String bootstrap;

    static List<Object> parts(Collection<TopicPartition> tps) {
        List<Object> l = Json.list();
        tps.stream().map(x -> x.topic() + ":" + x.partition()).sorted().forEach(l::add);
        return l;
    }

    static void loop(C c) {
        while (c.running) {
            Runnable r;
            while ((r = c.tasks.poll()) != null) r.run();
            if (!c.running) break;
            if (!c.polling) {
                try { Thread.sleep(20); } catch (InterruptedException e) { return; }
                continue;
            }
            try {
                ConsumerRecords<byte[], byte[]> recs = c.consumer.poll(Duration.ofMillis(100));
                ConsumerGroupMetadata gm = c.consumer.groupMetadata();
                if (!recs.isEmpty() || gm.generationId() != c.lastGen || !Objects.equals(gm.memberId(), c.lastMember)) {
                    List<Object> rl = Json.list();
                    for (ConsumerRecord<byte[], byte[]> rec : recs) rl.add(List.of(rec.partition(), rec.offset()));
                    c.add(Json.obj("t", "poll", "gen", gm.generationId(), "member", gm.memberId(), "recs", rl,
                            "assignment", parts(c.consumer.assignment())));
                    c.lastGen = gm.generationId();
                    c.lastMember = gm.memberId();
                }
            } catch (Throwable t) {
                Map<String, Object> e = CommandShell.err(t);
                e.put("t", "error");
                c.add(e);
            }
            if (c.commitEveryMs > 0 && System.currentTimeMillis() - c.lastCommit >= c.commitEveryMs) {
                c.lastCommit = System.currentTimeMillis();
                Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
                Map<String, Object> offs = new TreeMap<>();
                try {
                    for (TopicPartition tp : c.consumer.assignment()) {
                        long pos = c.consumer.position(tp);
                        m.put(tp, new OffsetAndMetadata(pos));
                        offs.put(String.valueOf(tp.partition()), pos);
                    }
                    c.consumer.commitSync(m, Duration.ofSeconds(60));
                    c.add(Json.obj("t", "autocommit", "ok", true, "offsets", offs));
                } catch (Throwable t) {
                    Map<String, Object> e = CommandShell.err(t);
                    e.put("t", "autocommit");
                    e.put("offsets", offs);
                    c.add(e);
                }
            }
        }
    }

    public static void main(String[] argv) throws Exception {
        bootstrap = argv[0];
        CommandShell.serve((a, out) -> run(a, out));
        for (C c : CONSUMERS.values()) {
            c.running = false;
        }
        Json.flush();
        System.exit(0);
    }

    static void run(String[] a, Map<String, Object> out) throws Exception {
        switch (a[0]) {
            case "start" -> {
                Properties cp = new Properties();
                cp.put("bootstrap.servers", bootstrap);
                cp.put("key.deserializer", ByteArrayDeserializer.class.getName());
                cp.put("value.deserializer", ByteArrayDeserializer.class.getName());
                cp.put("group.id", a[2]);
                cp.put("client.id", a[1]);
                cp.put("enable.auto.commit", "false");
                cp.put("auto.offset.reset", "earliest");
                cp.put("session.timeout.ms", "20000");
                cp.put("heartbeat.interval.ms", "500");
                cp.put("request.timeout.ms", "10000");
                cp.put("retry.backoff.ms", "100");
                cp.put("partition.assignment.strategy", a[4].equals("range") ? RangeAssignor.class.getName() : CooperativeStickyAssignor.class.getName());
                if (!a[5].isEmpty()) cp.put("group.instance.id", a[5]);
                for (int i = 6; i < a.length; i++) {
                    int eq = a[i].indexOf('=');
                    cp.put(a[i].substring(0, eq), a[i].substring(eq + 1));
                }
                KafkaConsumer<byte[], byte[]> k = new KafkaConsumer<>(cp);
                C c = new C(a[1], k);
                k.subscribe(List.of(a[3]), new ConsumerRebalanceListener() {
                    public void onPartitionsRevoked(Collection<TopicPartition> p) {
                        c.add(Json.obj("t", "revoked", "parts", parts(p), "gen", k.groupMetadata().generationId(), "member", k.groupMetadata().memberId()));
                    }
                    public void onPartitionsAssigned(Collection<TopicPartition> p) {
                        c.add(Json.obj("t", "assigned", "parts", parts(p), "gen", k.groupMetadata().generationId(), "member", k.groupMetadata().memberId()));
                    }
                    public void onPartitionsLost(Collection<TopicPartition> p) {
                        c.add(Json.obj("t", "lost", "parts", parts(p), "gen", k.groupMetadata().generationId(), "member", k.groupMetadata().memberId()));
                    }
                });
                CONSUMERS.put(a[1], c);
                c.thread = new Thread(() -> loop(c), "consumer-" + a[1]);
                c.thread.setDaemon(true);
                c.thread.start();
            }
            case "drain" -> out.put("events", CONSUMERS.get(a[1]).drain());
            case "commit" -> {
                C c = CONSUMERS.get(a[1]);
                Map<String, Object> r = c.call(() -> {
                    Map<String, Object> offs = new TreeMap<>();
                    Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
                    for (TopicPartition tp : c.consumer.assignment()) {
                        long pos = c.consumer.position(tp);
                        m.put(tp, new OffsetAndMetadata(pos));
                        offs.put(String.valueOf(tp.partition()), pos);
                    }
                    try {
                        c.consumer.commitSync(m, Duration.ofSeconds(60));
                        return Json.obj("ok", true, "offsets", offs);
                    } catch (Throwable t) {
                        Map<String, Object> e = CommandShell.err(t);
                        e.put("offsets", offs);
                        return e;
                    }
                });
                out.putAll(r);
                CONSUMERS.get(a[1]).add(Json.obj("t", "commit", "result", r));
            }
            case "commit-async" -> {
                C c = CONSUMERS.get(a[1]);
                Map<String, Object> offs = c.call(() -> {
                    Map<String, Object> o = new TreeMap<>();
                    Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
                    for (TopicPartition tp : c.consumer.assignment()) {
                        long pos = c.consumer.position(tp);
                        m.put(tp, new OffsetAndMetadata(pos));
                        o.put(String.valueOf(tp.partition()), pos);
                    }
                    c.consumer.commitAsync(m, (om, ex) -> c.add(Json.obj("t", "commit-async", "ok", ex == null, "error", ex == null ? null : ex.getClass().getSimpleName() + ": " + ex.getMessage(), "offsets", o)));
                    return o;
                });
                out.put("offsets", offs);
            }
            case "meta" -> {
                C c = CONSUMERS.get(a[1]);
                ConsumerGroupMetadata gm = c.call(() -> c.consumer.groupMetadata());
                out.put("gen", gm.generationId());
                out.put("member", gm.memberId());
            }
            case "commit-every" -> CONSUMERS.get(a[1]).commitEveryMs = Long.parseLong(a[2]);
            case "pause-polling" -> CONSUMERS.get(a[1]).polling = false;
            case "resume-polling" -> CONSUMERS.get(a[1]).polling = true;
            case "close" -> {
                C c = CONSUMERS.remove(a[1]);
                c.call(() -> { c.consumer.close(Duration.ofSeconds(10)); return null; });
                c.running = false;
                c.thread.join(10000);
                out.put("events", c.drain());
            }
            default -> throw new IllegalArgumentException("unknown command " + a[0]);
        }
    }
}
