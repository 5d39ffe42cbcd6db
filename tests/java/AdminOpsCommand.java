import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DeleteConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.DeleteRecordsResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The operations admin commands of the driver: dynamic configs, record deletion, log dirs and
 * group offsets.
 *
 * <pre>
 * incremental-alter-configs topic|broker NAME [--set k=v]... [--delete k]... [--append k=v]...
 *                           [--subtract k=v]... [--validate-only]
 * delete-records --offset TOPIC:PARTITION=OFFSET...
 * describe-log-dirs [--broker ID]...
 * alter-group-offsets GROUP --offset TOPIC:PARTITION=OFFSET...
 * delete-group-offsets GROUP --partition TOPIC:PARTITION...
 * </pre>
 *
 * One JSON line per command ({@code "ok"} and the results, or the error fields of
 * {@link MoldauClient#errorFields}); per-partition results carry their own error fields.
 */
final class AdminOpsCommand {
    private AdminOpsCommand() {}

    private static Map<TopicPartition, Long> offsets(Args args) {
        Map<TopicPartition, Long> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : args.pairs("offset").entrySet()) {
            out.put(AdminSupport.partition(e.getKey()), Long.parseLong(e.getValue()));
        }
        return out;
    }

    static int incrementalAlterConfigs(Args args) throws InterruptedException {
        String kind = args.positional(0, "resource type (topic|broker)");
        String name = args.positional(1, "resource name");
        ConfigResource.Type type = switch (kind) {
            case "topic" -> ConfigResource.Type.TOPIC;
            case "broker" -> ConfigResource.Type.BROKER;
            default -> throw new Args.UsageException("type must be topic or broker, got " + kind);
        };
        List<AlterConfigOp> ops = new ArrayList<>();
        args.pairs("set").forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        for (String k : args.all("delete")) {
            ops.add(new AlterConfigOp(new ConfigEntry(k, ""), AlterConfigOp.OpType.DELETE));
        }
        args.pairs("append").forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.APPEND)));
        args.pairs("subtract").forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SUBTRACT)));
        boolean validateOnly = args.bool("validate-only", false);
        return AdminSupport.withAdmin(args, admin -> {
            ConfigResource resource = new ConfigResource(type, name);
            Map<String, Object> line = Json.obj("op", "incremental-alter-configs", "type", kind, "name", name);
            try {
                admin.incrementalAlterConfigs(Map.of(resource, ops), new AlterConfigsOptions().validateOnly(validateOnly))
                        .all().get();
                line.put("ok", true);
            } catch (ExecutionException e) {
                line.putAll(MoldauClient.errorFields(e));
            }
            Json.emit(line);
        });
    }

    static int deleteRecords(Args args) throws InterruptedException {
        Map<TopicPartition, RecordsToDelete> wanted = new LinkedHashMap<>();
        offsets(args).forEach((tp, o) -> wanted.put(tp, RecordsToDelete.beforeOffset(o)));
        return AdminSupport.withAdmin(args, admin -> {
            DeleteRecordsResult result = admin.deleteRecords(wanted);
            Map<String, Object> partitions = new TreeMap<>();
            for (TopicPartition tp : wanted.keySet()) {
                try {
                    partitions.put(AdminSupport.name(tp), Json.obj("ok", true, "low_watermark",
                            result.lowWatermarks().get(tp).get().lowWatermark()));
                } catch (ExecutionException e) {
                    partitions.put(AdminSupport.name(tp), MoldauClient.errorFields(e));
                }
            }
            Json.emit(Json.obj("op", "delete-records", "ok", true, "partitions", partitions));
        });
    }

    static int describeLogDirs(Args args) throws InterruptedException {
        List<Integer> brokers = new ArrayList<>();
        for (String b : args.all("broker")) brokers.add(Integer.parseInt(b));
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, Object> line = Json.obj("op", "describe-log-dirs");
            try {
                Collection<Integer> ids = brokers;
                if (ids.isEmpty()) {
                    ids = new ArrayList<>();
                    for (var n : admin.describeCluster().nodes().get()) ids.add(n.id());
                }
                Map<Integer, Map<String, LogDirDescription>> all = admin.describeLogDirs(ids).allDescriptions().get();
                Map<String, Object> byBroker = new TreeMap<>();
                for (var b : all.entrySet()) {
                    Map<String, Object> dirs = new TreeMap<>();
                    for (var d : b.getValue().entrySet()) {
                        LogDirDescription desc = d.getValue();
                        Map<String, Object> replicas = new TreeMap<>();
                        for (Map.Entry<TopicPartition, ReplicaInfo> r : desc.replicaInfos().entrySet()) {
                            replicas.put(AdminSupport.name(r.getKey()), Json.obj(
                                    "size", r.getValue().size(),
                                    "offset_lag", r.getValue().offsetLag(),
                                    "is_future", r.getValue().isFuture()));
                        }
                        dirs.put(d.getKey(), Json.obj(
                                "error", desc.error() == null ? null : desc.error().getClass().getSimpleName(),
                                "total_bytes", desc.totalBytes().isPresent() ? desc.totalBytes().getAsLong() : null,
                                "usable_bytes", desc.usableBytes().isPresent() ? desc.usableBytes().getAsLong() : null,
                                "replicas", replicas));
                    }
                    byBroker.put(String.valueOf(b.getKey()), dirs);
                }
                line.put("ok", true);
                line.put("brokers", byBroker);
            } catch (ExecutionException e) {
                line.putAll(MoldauClient.errorFields(e));
            }
            Json.emit(line);
        });
    }

    static int alterGroupOffsets(Args args) throws InterruptedException {
        String group = args.positional(0, "group id");
        Map<TopicPartition, OffsetAndMetadata> wanted = new LinkedHashMap<>();
        offsets(args).forEach((tp, o) -> wanted.put(tp, new OffsetAndMetadata(o)));
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, Object> line = Json.obj("op", "alter-group-offsets", "group", group);
            try {
                admin.alterConsumerGroupOffsets(group, wanted).all().get();
                line.put("ok", true);
            } catch (ExecutionException e) {
                line.putAll(MoldauClient.errorFields(e));
            }
            Json.emit(line);
        });
    }

    static int deleteGroupOffsets(Args args) throws InterruptedException {
        String group = args.positional(0, "group id");
        Set<TopicPartition> wanted = new HashSet<>();
        for (String p : args.all("partition")) wanted.add(AdminSupport.partition(p));
        return AdminSupport.withAdmin(args, admin -> {
            DeleteConsumerGroupOffsetsResult result = admin.deleteConsumerGroupOffsets(group, wanted);
            Map<String, Object> line = Json.obj("op", "delete-group-offsets", "group", group);
            Map<String, Object> partitions = new TreeMap<>();
            try {
                result.all().get();
                line.put("ok", true);
            } catch (ExecutionException e) {
                line.putAll(MoldauClient.errorFields(e));
            }
            for (TopicPartition tp : wanted) {
                try {
                    result.partitionResult(tp).get();
                    partitions.put(AdminSupport.name(tp), Json.obj("ok", true));
                } catch (ExecutionException e) {
                    partitions.put(AdminSupport.name(tp), MoldauClient.errorFields(e));
                }
            }
            line.put("partitions", partitions);
            Json.emit(line);
        });
    }
}
