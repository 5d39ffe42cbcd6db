import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.*;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;

/**
 * Cluster shell: one Admin client, commands from stdin (tab-separated), one JSON line per command
 * ({"op":..,"ok":..}). Usage: ClusterShell BOOTSTRAP
 */
public final class ClusterShell {
    static final Properties BASE = new Properties();
    static final Map<String, KafkaProducer<byte[], byte[]>> PRODUCERS = new HashMap<>();
    static final Map<String, KafkaConsumer<byte[], byte[]>> CONSUMERS = new HashMap<>();

    static TopicPartition tp(String s) {
        int c = s.lastIndexOf(':');
        return new TopicPartition(s.substring(0, c), Integer.parseInt(s.substring(c + 1)));
    }

    static List<Object> ids(List<Node> nodes) {
        List<Object> l = Json.list();
        for (Node n : nodes) l.add(n.id());
        return l;
    }

    static List<Object> ops(Set<AclOperation> s) {
        if (s == null) return null;
        List<Object> l = Json.list();
        new TreeSet<>(s.stream().map(Enum::name).toList()).forEach(l::add);
        return l;
    }

    public static void main(String[] argv) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", argv[0]);
        p.put("request.timeout.ms", "15000");
        p.put("default.api.timeout.ms", "30000");
        for (int i = 1; i < argv.length; i++) {
            int eq = argv[i].indexOf('=');
            p.put(argv[i].substring(0, eq), argv[i].substring(eq + 1));
        }
        BASE.put("bootstrap.servers", argv[0]);
        Admin admin = Admin.create(p);
        CommandShell.serve((a, out) -> run(admin, a, out));
        admin.close(Duration.ofSeconds(5));
        Json.flush();
        System.exit(0);
    }

    static void run(Admin admin, String[] a, Map<String, Object> out) throws Exception {
        switch (a[0]) {
            case "describe-cluster" -> {
                DescribeClusterResult r = admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true));
                out.put("cluster_id", r.clusterId().get());
                out.put("controller", r.controller().get().id());
                out.put("nodes", ids(new ArrayList<>(r.nodes().get())));
                out.put("authorized_operations", ops(r.authorizedOperations().get()));
            }
            case "describe-topics" -> {
                List<String> names = Arrays.asList(a).subList(1, a.length);
                Map<String, KafkaFuture<TopicDescription>> fs = admin.describeTopics(names,
                        new DescribeTopicsOptions().includeAuthorizedOperations(true)).topicNameValues();
                Map<String, Object> topics = new TreeMap<>();
                for (String n : names) {
                    try {
                        TopicDescription d = fs.get(n).get();
                        List<Object> parts = Json.list();
                        for (TopicPartitionInfo pi : d.partitions())
                            parts.add(Json.obj("partition", pi.partition(), "leader", pi.leader() == null ? null : pi.leader().id(),
                                    "replicas", ids(pi.replicas()), "isr", ids(pi.isr())));
                        topics.put(n, Json.obj("ok", true, "partitions", parts, "authorized_operations", ops(d.authorizedOperations())));
                    } catch (ExecutionException e) {
                        topics.put(n, CommandShell.err(e));
                    }
                }
                out.put("topics", topics);
            }
            case "create-partitions" -> {
                admin.createPartitions(Map.of(a[1], NewPartitions.increaseTo(Integer.parseInt(a[2])))).all().get();
            }
            case "elect" -> {
                Set<TopicPartition> s = new HashSet<>();
                for (int i = 2; i < a.length; i++) s.add(tp(a[i]));
                Map<TopicPartition, Optional<Throwable>> r = admin.electLeaders(ElectionType.valueOf(a[1]), s.isEmpty() ? null : s).partitions().get();
                Map<String, Object> res = new TreeMap<>();
                for (var e : r.entrySet()) res.put(e.getKey().topic() + ":" + e.getKey().partition(),
                        e.getValue().isPresent() ? CommandShell.err(e.getValue().get()) : Json.obj("ok", true));
                out.put("partitions", res);
            }
            case "describe-log-dirs" -> {
                List<Integer> bs = new ArrayList<>();
                for (int i = 1; i < a.length; i++) bs.add(Integer.parseInt(a[i]));
                Map<String, Object> res = new TreeMap<>();
                for (var e : admin.describeLogDirs(bs).allDescriptions().get().entrySet()) {
                    Map<String, Object> dirs = new TreeMap<>();
                    for (var d : e.getValue().entrySet()) {
                        Map<String, Object> reps = new TreeMap<>();
                        for (var ri : d.getValue().replicaInfos().entrySet())
                            reps.put(ri.getKey().topic() + ":" + ri.getKey().partition(), Json.obj("size", ri.getValue().size(), "offset_lag", ri.getValue().offsetLag(), "future", ri.getValue().isFuture()));
                        dirs.put(d.getKey(), Json.obj("error", d.getValue().error() == null ? null : d.getValue().error().getClass().getSimpleName(), "replicas", reps));
                    }
                    res.put(String.valueOf(e.getKey()), dirs);
                }
                out.put("brokers", res);
            }
            case "describe-replica-log-dirs" -> {
                List<TopicPartitionReplica> rs = new ArrayList<>();
                for (int i = 1; i < a.length; i++) {
                    String[] x = a[i].split(":");
                    rs.add(new TopicPartitionReplica(x[0], Integer.parseInt(x[1]), Integer.parseInt(x[2])));
                }
                Map<String, Object> res = new TreeMap<>();
                for (var e : admin.describeReplicaLogDirs(rs).values().entrySet()) {
                    try {
                        var info = e.getValue().get();
                        res.put(e.getKey().toString(), Json.obj("ok", true, "dir", info.getCurrentReplicaLogDir(), "lag", info.getCurrentReplicaOffsetLag(), "future", info.getFutureReplicaLogDir()));
                    } catch (ExecutionException ex) {
                        res.put(e.getKey().toString(), CommandShell.err(ex));
                    }
                }
                out.put("replicas", res);
            }
            case "list-offsets" -> {
                IsolationLevel iso = IsolationLevel.valueOf(a[1]);
                OffsetSpec spec = switch (a[2]) {
                    case "earliest" -> OffsetSpec.earliest();
                    case "latest" -> OffsetSpec.latest();
                    case "max" -> OffsetSpec.maxTimestamp();
                    default -> OffsetSpec.forTimestamp(Long.parseLong(a[2]));
                };
                Map<TopicPartition, OffsetSpec> m = new HashMap<>();
                for (int i = 3; i < a.length; i++) m.put(tp(a[i]), spec);
                Map<String, Object> res = new TreeMap<>();
                ListOffsetsResult r = admin.listOffsets(m, new ListOffsetsOptions(iso));
                for (TopicPartition t : m.keySet()) {
                    try {
                        var info = r.partitionResult(t).get();
                        res.put(t.topic() + ":" + t.partition(), Json.obj("ok", true, "offset", info.offset(), "timestamp", info.timestamp(), "leader_epoch", info.leaderEpoch().orElse(-1)));
                    } catch (ExecutionException ex) {
                        res.put(t.topic() + ":" + t.partition(), CommandShell.err(ex));
                    }
                }
                out.put("partitions", res);
            }
            case "describe-producers" -> {
                TopicPartition t = tp(a[1]);
                DescribeProducersOptions o = new DescribeProducersOptions();
                if (a.length > 2) o.brokerId(Integer.parseInt(a[2]));
                var st = admin.describeProducers(List.of(t), o).partitionResult(t).get();
                List<Object> l = Json.list();
                for (ProducerState ps : st.activeProducers())
                    l.add(Json.obj("producer_id", ps.producerId(), "epoch", ps.producerEpoch(), "last_sequence", ps.lastSequence(),
                            "last_timestamp", ps.lastTimestamp(), "coordinator_epoch", ps.coordinatorEpoch().isPresent() ? ps.coordinatorEpoch().getAsInt() : null,
                            "txn_start", ps.currentTransactionStartOffset().isPresent() ? ps.currentTransactionStartOffset().getAsLong() : null));
                out.put("producers", l);
            }
            case "list-transactions" -> {
                List<Object> l = Json.list();
                for (TransactionListing t : admin.listTransactions().all().get())
                    l.add(Json.obj("id", t.transactionalId(), "producer_id", t.producerId(), "state", t.state().name()));
                out.put("transactions", l);
            }
            case "describe-transactions" -> {
                List<String> idsL = Arrays.asList(a).subList(1, a.length);
                Map<String, Object> res = new TreeMap<>();
                var r = admin.describeTransactions(idsL);
                for (String id : idsL) {
                    try {
                        TransactionDescription d = r.description(id).get();
                        List<Object> parts = Json.list();
                        for (TopicPartition t : new TreeSet<>(d.topicPartitions().stream().map(x -> x.topic() + ":" + x.partition()).toList()).stream().map(ClusterShell::tp).toList())
                            parts.add(t.topic() + ":" + t.partition());
                        res.put(id, Json.obj("ok", true, "coordinator", d.coordinatorId(), "state", d.state().name(), "producer_id", d.producerId(),
                                "epoch", d.producerEpoch(), "timeout_ms", d.transactionTimeoutMs(),
                                "start_ms", d.transactionStartTimeMs().isPresent() ? d.transactionStartTimeMs().getAsLong() : null, "partitions", parts));
                    } catch (ExecutionException ex) {
                        res.put(id, CommandShell.err(ex));
                    }
                }
                out.put("transactions", res);
            }
            case "abort-transaction" -> {
                admin.abortTransaction(new AbortTransactionSpec(tp(a[1]), Long.parseLong(a[2]), Short.parseShort(a[3]), Integer.parseInt(a[4]))).all().get();
            }
            case "fence-producers" -> {
                admin.fenceProducers(Arrays.asList(a).subList(1, a.length)).all().get();
            }
            case "alter-group-offsets" -> {
                Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
                for (int i = 2; i < a.length; i++) {
                    int eq = a[i].indexOf('=');
                    m.put(tp(a[i].substring(0, eq)), new OffsetAndMetadata(Long.parseLong(a[i].substring(eq + 1))));
                }
                admin.alterConsumerGroupOffsets(a[1], m).all().get();
            }
            case "remove-members" -> {
                RemoveMembersFromConsumerGroupOptions o;
                if (a.length > 2) {
                    List<MemberToRemove> ms = new ArrayList<>();
                    for (int i = 2; i < a.length; i++) ms.add(new MemberToRemove(a[i]));
                    o = new RemoveMembersFromConsumerGroupOptions(ms);
                } else {
                    o = new RemoveMembersFromConsumerGroupOptions();
                }
                admin.removeMembersFromConsumerGroup(a[1], o).all().get();
            }
            case "delete-group-offsets" -> {
                Set<TopicPartition> s = new HashSet<>();
                for (int i = 2; i < a.length; i++) s.add(tp(a[i]));
                var r = admin.deleteConsumerGroupOffsets(a[1], s);
                Map<String, Object> res = new TreeMap<>();
                for (TopicPartition t : s) {
                    try {
                        r.partitionResult(t).get();
                        res.put(t.topic() + ":" + t.partition(), Json.obj("ok", true));
                    } catch (ExecutionException ex) {
                        res.put(t.topic() + ":" + t.partition(), CommandShell.err(ex));
                    }
                }
                out.put("partitions", res);
                try { r.all().get(); } catch (ExecutionException ex) { out.put("all", CommandShell.err(ex)); }
            }
            case "list-group-offsets" -> {
                Map<String, Object> res = new TreeMap<>();
                for (var e : admin.listConsumerGroupOffsets(a[1]).partitionsToOffsetAndMetadata().get().entrySet())
                    res.put(e.getKey().topic() + ":" + e.getKey().partition(), e.getValue() == null ? null : e.getValue().offset());
                out.put("offsets", res);
            }
            case "describe-group" -> {
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(a[1])).all().get().get(a[1]);
                out.put("state", d.groupState().name());
                List<Object> ms = Json.list();
                for (MemberDescription m : d.members())
                    ms.add(Json.obj("member_id", m.consumerId(), "instance_id", m.groupInstanceId().orElse(null),
                            "partitions", m.assignment().topicPartitions().stream().map(x -> x.topic() + ":" + x.partition()).sorted().toList()));
                out.put("members", ms);
                out.put("coordinator", d.coordinator().id());
            }
            case "describe-features" -> {
                FeatureMetadata f = admin.describeFeatures().featureMetadata().get();
                Map<String, Object> fin = new TreeMap<>();
                for (var e : f.finalizedFeatures().entrySet()) fin.put(e.getKey(), List.of(e.getValue().minVersionLevel(), e.getValue().maxVersionLevel()));
                Map<String, Object> sup = new TreeMap<>();
                for (var e : f.supportedFeatures().entrySet()) sup.put(e.getKey(), List.of(e.getValue().minVersion(), e.getValue().maxVersion()));
                out.put("finalized", fin);
                out.put("finalized_epoch", f.finalizedFeaturesEpoch().isPresent() ? f.finalizedFeaturesEpoch().get() : null);
                out.put("supported", sup);
            }
            case "describe-broker-config" -> {
                ConfigResource res = new ConfigResource(ConfigResource.Type.BROKER, a[1]);
                Config c = admin.describeConfigs(List.of(res)).all().get().get(res);
                Map<String, Object> m = new TreeMap<>();
                for (ConfigEntry e : c.entries()) m.put(e.name(), Json.obj("value", e.value(), "source", e.source().name(), "sensitive", e.isSensitive(), "read_only", e.isReadOnly()));
                out.put("configs", m);
            }
            case "reassign" -> {
                Map<TopicPartition, Optional<NewPartitionReassignment>> m = new HashMap<>();
                for (int i = 1; i < a.length; i++) {
                    int eq = a[i].indexOf('=');
                    if (eq < 0) { m.put(tp(a[i]), Optional.empty()); continue; }
                    List<Integer> rs = new ArrayList<>();
                    for (String x : a[i].substring(eq + 1).split(",")) rs.add(Integer.parseInt(x));
                    m.put(tp(a[i].substring(0, eq)), Optional.of(new NewPartitionReassignment(rs)));
                }
                var r = admin.alterPartitionReassignments(m).values();
                Map<String, Object> res = new TreeMap<>();
                for (var e : r.entrySet()) {
                    try { e.getValue().get(); res.put(e.getKey().topic() + ":" + e.getKey().partition(), Json.obj("ok", true)); }
                    catch (ExecutionException ex) { res.put(e.getKey().topic() + ":" + e.getKey().partition(), CommandShell.err(ex)); }
                }
                out.put("partitions", res);
            }
            case "list-reassignments" -> {
                Map<String, Object> res = new TreeMap<>();
                for (var e : admin.listPartitionReassignments().reassignments().get().entrySet())
                    res.put(e.getKey().topic() + ":" + e.getKey().partition(), Json.obj("replicas", e.getValue().replicas(), "adding", e.getValue().addingReplicas(), "removing", e.getValue().removingReplicas()));
                out.put("reassignments", res);
            }
            case "delete-records" -> {
                Map<TopicPartition, RecordsToDelete> m = new HashMap<>();
                for (int i = 1; i < a.length; i++) {
                    int eq = a[i].indexOf('=');
                    m.put(tp(a[i].substring(0, eq)), RecordsToDelete.beforeOffset(Long.parseLong(a[i].substring(eq + 1))));
                }
                Map<String, Object> res = new TreeMap<>();
                for (var e : admin.deleteRecords(m).lowWatermarks().entrySet()) {
                    try { res.put(e.getKey().topic() + ":" + e.getKey().partition(), Json.obj("ok", true, "low_watermark", e.getValue().get().lowWatermark())); }
                    catch (ExecutionException ex) { res.put(e.getKey().topic() + ":" + e.getKey().partition(), CommandShell.err(ex)); }
                }
                out.put("partitions", res);
            }
            case "txn-open" -> {
                // txn-open ID TOPIC:PARTITION N [PREFIX]: init, begin, send N records, flush; stays open
                KafkaProducer<byte[], byte[]> pr = PRODUCERS.get(a[1]);
                if (pr == null) {
                    Properties pp = new Properties();
                    pp.putAll(BASE);
                    pp.put("transactional.id", a[1]);
                    pp.put("key.serializer", ByteArraySerializer.class.getName());
                    pp.put("value.serializer", ByteArraySerializer.class.getName());
                    pp.put("delivery.timeout.ms", "60000");
                    pp.put("request.timeout.ms", "10000");
                    pp.put("transaction.timeout.ms", "60000");
                    pr = new KafkaProducer<>(pp);
                    PRODUCERS.put(a[1], pr);
                    pr.initTransactions();
                }
                pr.beginTransaction();
                TopicPartition t = tp(a[2]);
                int n = Integer.parseInt(a[3]);
                String prefix = a.length > 4 ? a[4] : a[1];
                List<Object> offs = Json.list();
                List<java.util.concurrent.Future<RecordMetadata>> fs = new ArrayList<>();
                for (int i = 0; i < n; i++)
                    fs.add(pr.send(new ProducerRecord<>(t.topic(), t.partition(), null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8))));
                pr.flush();
                for (var f : fs) offs.add(f.get().offset());
                out.put("offsets", offs);
            }
            case "txn-send" -> {
                KafkaProducer<byte[], byte[]> pr = PRODUCERS.get(a[1]);
                TopicPartition t = tp(a[2]);
                int n = Integer.parseInt(a[3]);
                String prefix = a[4];
                List<Object> offs = Json.list();
                List<java.util.concurrent.Future<RecordMetadata>> fs = new ArrayList<>();
                for (int i = 0; i < n; i++)
                    fs.add(pr.send(new ProducerRecord<>(t.topic(), t.partition(), null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8))));
                pr.flush();
                for (var f : fs) offs.add(f.get().offset());
                out.put("offsets", offs);
            }
            case "txn-commit" -> PRODUCERS.get(a[1]).commitTransaction();
            case "txn-abort" -> PRODUCERS.get(a[1]).abortTransaction();
            case "txn-close" -> PRODUCERS.remove(a[1]).close(Duration.ofSeconds(5));
            case "read-committed" -> {
                // read-committed TOPIC:PARTITION: every value below the end offset (read_committed)
                Properties cp = new Properties();
                cp.putAll(BASE);
                cp.put("key.deserializer", ByteArrayDeserializer.class.getName());
                cp.put("value.deserializer", ByteArrayDeserializer.class.getName());
                cp.put("isolation.level", "read_committed");
                cp.put("enable.auto.commit", "false");
                try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp)) {
                    TopicPartition t = tp(a[1]);
                    c.assign(List.of(t));
                    c.seekToBeginning(List.of(t));
                    long end = c.endOffsets(List.of(t), Duration.ofSeconds(30)).get(t);
                    List<Object> vals = Json.list();
                    long deadline = System.currentTimeMillis() + 30000;
                    while (c.position(t, Duration.ofSeconds(30)) < end && System.currentTimeMillis() < deadline) {
                        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500)))
                            vals.add(Json.obj("o", r.offset(), "v", new String(r.value(), StandardCharsets.UTF_8)));
                    }
                    out.put("end", end);
                    out.put("position", c.position(t, Duration.ofSeconds(30)));
                    out.put("records", vals);
                }
            }
            case "group-start" -> {
                // group-start NAME GROUP TOPIC ASSIGNOR [INSTANCE_ID]
                Properties cp = new Properties();
                cp.putAll(BASE);
                cp.put("key.deserializer", ByteArrayDeserializer.class.getName());
                cp.put("value.deserializer", ByteArrayDeserializer.class.getName());
                cp.put("group.id", a[2]);
                cp.put("enable.auto.commit", "false");
                cp.put("auto.offset.reset", "earliest");
                cp.put("session.timeout.ms", "10000");
                cp.put("heartbeat.interval.ms", "1000");
                cp.put("partition.assignment.strategy", a[4].equals("range") ? RangeAssignor.class.getName() : CooperativeStickyAssignor.class.getName());
                if (a.length > 5 && !a[5].isEmpty()) cp.put("group.instance.id", a[5]);
                KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp);
                c.subscribe(List.of(a[3]));
                CONSUMERS.put(a[1], c);
            }
            case "group-poll" -> {
                // group-poll NAME MS: one poll; records as {"p","o","v"}
                KafkaConsumer<byte[], byte[]> c = CONSUMERS.get(a[1]);
                List<Object> vals = Json.list();
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(Long.parseLong(a[2]))))
                    vals.add(Json.obj("p", r.partition(), "o", r.offset(), "v", new String(r.value(), StandardCharsets.UTF_8)));
                out.put("records", vals);
                out.put("assignment", c.assignment().stream().map(x -> x.topic() + ":" + x.partition()).sorted().toList());
            }
            case "group-commit" -> CONSUMERS.get(a[1]).commitSync(Duration.ofSeconds(30));
            case "group-close" -> CONSUMERS.remove(a[1]).close(Duration.ofSeconds(10));
            default -> throw new IllegalArgumentException("unknown command " + a[0]);
        }
    }
}
