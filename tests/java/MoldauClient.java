import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.NodeApiVersions;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Test driver around Kafka's reference Java client (kafka-clients 4.3) for Moldau's tests and
 * benchmarks. One JVM per call; every result is one JSON object per line on stdout.
 *
 * <pre>
 * MoldauClient COMMAND --bootstrap HOST:PORT [--client-id ID] [--property k=v]... [options]
 *   create-topic NAME --partitions N --replication R [--config k=v]... [--validate-only]
 *   list-topics [--internal]
 *   describe-topic NAME...
 *   describe-configs topic|broker NAME [--synonyms true|false] [--documentation]
 *   describe-cluster
 *   delete-topic NAME...
 *   api-versions
 *   incremental-alter-configs, delete-records, describe-log-dirs, alter-group-offsets,
 *   delete-group-offsets   (see AdminOpsCommand)
 *   create-partitions, alter-reassignments, list-reassignments   (see PartitionsCommand)
 *   alter-scram-users, describe-scram-users   (SCRAM users, see ScramCommand)
 *   warmup             (no broker needed: loads the client classes, for a class-data-sharing archive)
 *   batch              (reads commands from stdin, one per line, arguments separated by tabs; each
 *                       command's output ends with {"op":"batch-done","status":N}: one JVM for many calls)
 *   produce ...        (see ProduceCommand)
 *   perf-produce ...   (see ProduceCommand)
 *   consume ...        (see ConsumeCommand)
 *   perf-consume ...   (see ConsumeCommand)
 *   txn-produce, txn-copy, txn-fence   (transactions, see TxnCommand)
 * </pre>
 *
 * Kafka errors are reported, not thrown: {@code "ok":false}, the exception class name in
 * {@code "error"} and Kafka's error name in {@code "error_code"} (Errors.forException). Exit
 * status: 0 when the command ran (even if it reported Kafka errors), 1 on an unexpected
 * failure, 2 on a usage error.
 */
public final class MoldauClient {
    private MoldauClient() {}

    public static void main(String[] argv) {
        int status = argv.length > 0 && argv[0].equals("batch") ? batch() : runOne(argv);
        Json.flush();
        // Kafka client threads are non-daemon only while a client is open; exit explicitly so a
        // stuck background thread can never keep a test waiting.
        System.exit(status);
    }

    /** One command; failures become a JSON line and the exit status (0 ran, 1 failed, 2 usage). */
    private static int runOne(String[] argv) {
        try {
            return run(new Args(argv));
        } catch (Args.UsageException e) {
            Json.emitNow(Json.obj("ok", false, "error", "UsageException", "message", e.getMessage()));
            return 2;
        } catch (Throwable t) {
            Map<String, Object> line = errorFields(t);
            line.put("fatal", true);
            Json.emitNow(line);
            t.printStackTrace();
            return 1;
        }
    }

    /** Commands from stdin until it closes, each followed by a batch-done line with its status. */
    private static int batch() {
        try (java.io.BufferedReader in = new java.io.BufferedReader(
                new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) continue;
                String[] argv = line.split("\t", -1);
                int status = argv[0].equals("batch") || java.util.Arrays.asList(argv).contains("--stdin-control")
                        ? usage("batch cannot run batch or --stdin-control commands")
                        : runOne(argv);
                Json.emitNow(Json.obj("op", "batch-done", "status", status));
            }
            return 0;
        } catch (java.io.IOException e) {
            return 1;
        }
    }

    private static int usage(String message) {
        Json.emitNow(Json.obj("ok", false, "error", "UsageException", "message", message));
        return 2;
    }

    private static int run(Args args) throws Exception {
        switch (args.command) {
            case "create-topic":
                return createTopic(args);
            case "list-topics":
                return listTopics(args);
            case "describe-topic":
                return describeTopics(args);
            case "describe-configs":
                return describeConfigs(args);
            case "describe-cluster":
                return describeCluster(args);
            case "delete-topic":
                return deleteTopics(args);
            case "api-versions":
                return apiVersions(args);
            case "incremental-alter-configs":
                return AdminOpsCommand.incrementalAlterConfigs(args);
            case "delete-records":
                return AdminOpsCommand.deleteRecords(args);
            case "describe-log-dirs":
                return AdminOpsCommand.describeLogDirs(args);
            case "alter-group-offsets":
                return AdminOpsCommand.alterGroupOffsets(args);
            case "delete-group-offsets":
                return AdminOpsCommand.deleteGroupOffsets(args);
            case "create-partitions":
                return PartitionsCommand.createPartitions(args);
            case "alter-reassignments":
                return PartitionsCommand.alter(args);
            case "list-reassignments":
                return PartitionsCommand.list(args);
            case "create-acls":
                return AclCommand.createAcls(args);
            case "describe-acls":
                return AclCommand.describeAcls(args);
            case "delete-acls":
                return AclCommand.deleteAcls(args);
            case "alter-scram-users":
                return ScramCommand.alter(args);
            case "describe-scram-users":
                return ScramCommand.describe(args);
            case "warmup":
                return warmup(args);
            case "produce":
                return ProduceCommand.produce(args);
            case "perf-produce":
                return ProduceCommand.perfProduce(args);
            case "consume":
                return ConsumeCommand.consume(args);
            case "perf-consume":
                return ConsumeCommand.perfConsume(args);
            case "txn-produce":
                return TxnCommand.produce(args);
            case "txn-copy":
                return TxnCommand.copy(args);
            case "txn-fence":
                return TxnCommand.fence(args);
            default:
                throw new Args.UsageException("unknown command " + args.command);
        }
    }

    // ---------------------------------------------------------------- errors

    /** The cause a Kafka future failed with (ExecutionException wraps it). */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof java.util.concurrent.CompletionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** {"ok":false,"error":ExceptionClass,"error_code":KAFKA_ERROR,"message":...}. */
    static Map<String, Object> errorFields(Throwable t) {
        Throwable cause = unwrap(t);
        return Json.obj(
                "ok", false,
                "error", cause.getClass().getSimpleName(),
                "error_code", Errors.forException(cause).name(),
                "message", cause.getMessage());
    }

    // ---------------------------------------------------------------- admin

    private static int createTopic(Args args) throws InterruptedException {
        String name = args.positional(0, "topic name");
        int partitions = args.intOpt("partitions", -1);
        int replication = args.intOpt("replication", -1);
        Map<String, String> configs = args.pairs("config");
        boolean validateOnly = args.bool("validate-only", false);
        return AdminSupport.withAdmin(args, admin -> {
            // -1 leaves the choice to the broker (num.partitions / default.replication.factor).
            NewTopic topic = new NewTopic(name,
                    partitions < 0 ? Optional.empty() : Optional.of(partitions),
                    replication < 0 ? Optional.empty() : Optional.of((short) replication));
            topic.configs(configs);
            CreateTopicsResult result = admin.createTopics(List.of(topic), new CreateTopicsOptions().validateOnly(validateOnly));
            Map<String, Object> line = Json.obj("op", "create-topic", "topic", name);
            try {
                result.all().get();
                line.put("ok", true);
                line.put("validate_only", validateOnly);
                line.put("topic_id", String.valueOf(orNull(result.topicId(name))));
                line.put("partitions", orNull(result.numPartitions(name)));
                line.put("replication", orNull(result.replicationFactor(name)));
                Config config = orNull(result.config(name));
                if (config != null) line.put("configs", configEntries(config, false, false));
            } catch (ExecutionException e) {
                line.putAll(errorFields(e));
            }
            Json.emit(line);
        });
    }

    /** A future's value, or null when the broker's version does not return that field. */
    private static <T> T orNull(KafkaFuture<T> future) throws InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            return null;
        }
    }

    private static int listTopics(Args args) throws InterruptedException {
        boolean internal = args.bool("internal", false);
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, Object> line = Json.obj("op", "list-topics");
            try {
                Collection<TopicListing> listings =
                        admin.listTopics(new ListTopicsOptions().listInternal(internal)).listings().get();
                List<Object> topics = Json.list();
                for (TopicListing l : new TreeMap<>(toMap(listings)).values()) {
                    topics.add(Json.obj("name", l.name(), "topic_id", String.valueOf(l.topicId()), "internal", l.isInternal()));
                }
                line.put("ok", true);
                line.put("topics", topics);
            } catch (ExecutionException e) {
                line.putAll(errorFields(e));
            }
            Json.emit(line);
        });
    }

    private static Map<String, TopicListing> toMap(Collection<TopicListing> listings) {
        Map<String, TopicListing> m = new TreeMap<>();
        for (TopicListing l : listings) m.put(l.name(), l);
        return m;
    }

    private static int describeTopics(Args args) throws InterruptedException {
        if (args.positional.isEmpty()) throw new Args.UsageException("describe-topic: missing topic name");
        List<String> names = new ArrayList<>(args.positional);
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, KafkaFuture<TopicDescription>> futures = admin.describeTopics(names).topicNameValues();
            for (String name : names) {
                Map<String, Object> line = Json.obj("op", "describe-topic", "topic", name);
                try {
                    TopicDescription d = futures.get(name).get();
                    line.put("ok", true);
                    line.put("topic_id", String.valueOf(d.topicId()));
                    line.put("internal", d.isInternal());
                    List<Object> parts = Json.list();
                    for (TopicPartitionInfo p : d.partitions()) {
                        parts.add(Json.obj(
                                "partition", p.partition(),
                                "leader", p.leader() == null ? null : p.leader().id(),
                                "replicas", nodeIds(p.replicas()),
                                "isr", nodeIds(p.isr())));
                    }
                    line.put("partitions", parts);
                } catch (ExecutionException e) {
                    line.putAll(errorFields(e));
                }
                Json.emit(line);
            }
        });
    }

    private static List<Object> nodeIds(List<Node> nodes) {
        List<Object> ids = Json.list();
        for (Node n : nodes) ids.add(n.id());
        return ids;
    }

    private static int describeConfigs(Args args) throws InterruptedException {
        String kind = args.positional(0, "resource type (topic|broker)");
        String name = args.positional(1, "resource name");
        ConfigResource.Type type = switch (kind) {
            case "topic" -> ConfigResource.Type.TOPIC;
            case "broker" -> ConfigResource.Type.BROKER;
            default -> throw new Args.UsageException("describe-configs: type must be topic or broker, got " + kind);
        };
        boolean synonyms = args.bool("synonyms", true);
        boolean documentation = args.bool("documentation", false);
        return AdminSupport.withAdmin(args, admin -> {
            ConfigResource resource = new ConfigResource(type, name);
            Map<String, Object> line = Json.obj("op", "describe-configs", "type", kind, "name", name);
            try {
                Config config = admin.describeConfigs(List.of(resource),
                        new DescribeConfigsOptions().includeSynonyms(synonyms).includeDocumentation(documentation))
                        .all().get().get(resource);
                line.put("ok", true);
                line.put("configs", configEntries(config, synonyms, documentation));
            } catch (ExecutionException e) {
                line.putAll(errorFields(e));
            }
            Json.emit(line);
        });
    }

    private static List<Object> configEntries(Config config, boolean synonyms, boolean documentation) {
        List<Object> entries = Json.list();
        List<ConfigEntry> sorted = new ArrayList<>(config.entries());
        sorted.sort((a, b) -> a.name().compareTo(b.name()));
        for (ConfigEntry e : sorted) {
            Map<String, Object> entry = Json.obj(
                    "name", e.name(),
                    "value", e.value(),
                    "source", e.source(),
                    "default", e.isDefault(),
                    "sensitive", e.isSensitive(),
                    "read_only", e.isReadOnly(),
                    "type", e.type());
            if (synonyms) {
                List<Object> syn = Json.list();
                for (ConfigEntry.ConfigSynonym s : e.synonyms()) {
                    syn.add(Json.obj("name", s.name(), "value", s.value(), "source", s.source()));
                }
                entry.put("synonyms", syn);
            }
            if (documentation) entry.put("documentation", e.documentation());
            entries.add(entry);
        }
        return entries;
    }

    private static int describeCluster(Args args) throws InterruptedException {
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, Object> line = Json.obj("op", "describe-cluster");
            try {
                DescribeClusterResult r = admin.describeCluster();
                line.put("cluster_id", r.clusterId().get());
                Node controller = r.controller().get();
                line.put("controller", controller == null ? null : node(controller));
                List<Object> nodes = Json.list();
                for (Node n : r.nodes().get()) nodes.add(node(n));
                line.put("nodes", nodes);
                line.put("ok", true);
            } catch (ExecutionException e) {
                line.putAll(errorFields(e));
            }
            Json.emit(line);
        });
    }

    private static Map<String, Object> node(Node n) {
        return Json.obj("id", n.id(), "host", n.host(), "port", n.port(), "rack", n.rack());
    }

    private static int deleteTopics(Args args) throws InterruptedException {
        if (args.positional.isEmpty()) throw new Args.UsageException("delete-topic: missing topic name");
        List<String> names = new ArrayList<>(args.positional);
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, KafkaFuture<Void>> futures = admin.deleteTopics(names).topicNameValues();
            for (String name : names) {
                Map<String, Object> line = Json.obj("op", "delete-topic", "topic", name);
                try {
                    futures.get(name).get();
                    line.put("ok", true);
                } catch (ExecutionException e) {
                    line.putAll(errorFields(e));
                }
                Json.emit(line);
            }
        });
    }

    // ---------------------------------------------------------------- warmup

    /**
     * Exercise the Admin, producer and consumer against an address where nothing listens, so
     * that a JVM run with -XX:ArchiveClassesAtExit archives the classes every command loads;
     * later runs map that archive and start in about half the time.
     */
    private static int warmup(Args args) throws Exception {
        String nowhere = args.str("bootstrap", "127.0.0.1:9");
        args.checkAllUsed();
        Properties p = new Properties();
        p.put("bootstrap.servers", nowhere);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "300");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "300");
        try (Admin admin = Admin.create(p)) {
            admin.describeCluster().clusterId().get();
        } catch (ExecutionException e) {
            // expected: nobody is listening
        }
        Properties pp = new Properties();
        pp.put("bootstrap.servers", nowhere);
        pp.put("max.block.ms", "300");
        pp.put("key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        pp.put("value.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
                     new org.apache.kafka.clients.producer.KafkaProducer<>(pp)) {
            producer.partitionsFor("warmup");
        } catch (org.apache.kafka.common.KafkaException e) {
            // expected: metadata never arrives
        }
        Properties cp = new Properties();
        cp.put("bootstrap.servers", nowhere);
        cp.put("group.id", "warmup");
        cp.put("key.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        cp.put("value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer =
                     new org.apache.kafka.clients.consumer.KafkaConsumer<>(cp)) {
            consumer.listTopics(Duration.ofMillis(300));
        } catch (org.apache.kafka.common.KafkaException e) {
            // expected
        }
        Json.emit(Json.obj("op", "warmup", "ok", true, "json", Json.toJson(List.of(1, "x", true))));
        return 0;
    }

    // ---------------------------------------------------------------- api-versions

    /**
     * What the client negotiated with each broker it talked to: the broker's advertised range,
     * the client's own range and the version the client will use (NodeApiVersions, read by
     * reflection from the Admin client's NetworkClient: there is no public API for it).
     */
    private static int apiVersions(Args args) throws Exception {
        Admin admin = AdminSupport.open(args);
        try {
            Map<String, Object> line = Json.obj("op", "api-versions");
            try {
                // Any request makes the client connect and negotiate versions with the node.
                admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
                ApiVersions apiVersions = networkApiVersions(admin);
                Map<String, Object> nodes = new TreeMap<>();
                for (String nodeId : nodeIdsOf(apiVersions)) {
                    NodeApiVersions nav = apiVersions.get(nodeId);
                    if (nav != null) nodes.put(nodeId, describe(nav));
                }
                line.put("ok", true);
                line.put("nodes", nodes);
            } catch (ExecutionException e) {
                line.putAll(errorFields(e));
            }
            Json.emit(line);
        } finally {
            admin.close(Duration.ofSeconds(5));
        }
        return 0;
    }

    private static Object field(Object target, String name) throws ReflectiveOperationException {
        Class<?> c = target.getClass();
        while (c != null) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(target);
            } catch (NoSuchFieldException e) {
                c = c.getSuperclass();
            }
        }
        throw new NoSuchFieldException(name + " in " + target.getClass().getName());
    }

    private static ApiVersions networkApiVersions(Admin admin) throws ReflectiveOperationException {
        Object client = field(admin, "client");
        return (ApiVersions) field(client, "apiVersions");
    }

    @SuppressWarnings("unchecked")
    private static Collection<String> nodeIdsOf(ApiVersions apiVersions) throws ReflectiveOperationException {
        synchronized (apiVersions) {
            return new ArrayList<>(((Map<String, NodeApiVersions>) field(apiVersions, "nodeApiVersions")).keySet());
        }
    }

    private static List<Object> describe(NodeApiVersions nav) {
        List<Object> apis = Json.list();
        for (Map.Entry<ApiKeys, ApiVersion> e : new TreeMap<>(nav.allSupportedApiVersions()).entrySet()) {
            ApiKeys key = e.getKey();
            ApiVersion v = e.getValue();
            Object usable;
            try {
                usable = (int) nav.latestUsableVersion(key);
            } catch (RuntimeException ex) {
                usable = null; // no overlap between the client's and the broker's ranges
            }
            apis.add(Json.obj(
                    "api", key.name(),
                    "key", (int) key.id,
                    "broker_min", (int) v.minVersion(),
                    "broker_max", (int) v.maxVersion(),
                    "client_min", (int) key.oldestVersion(),
                    "client_max", (int) key.latestVersion(),
                    "usable", usable));
        }
        return apis;
    }
}
