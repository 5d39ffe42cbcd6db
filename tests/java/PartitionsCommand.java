import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterPartitionReassignmentsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.common.TopicPartition;

/**
 * Partition admin commands of the driver: adding partitions, reassignment (KIP-455).
 *
 * <pre>
 * create-partitions TOPIC --count N                     (the new total)
 * alter-reassignments --move TOPIC:PARTITION=B1,B2,...  (a target)
 *                     --cancel TOPIC:PARTITION          (null replicas)
 * list-reassignments [--partition TOPIC:PARTITION]...   (none: every one in progress)
 * </pre>
 *
 * One JSON line: create-partitions gives {@code "ok"} or the error fields; alter gives each partition's result ({@code "ok"} or the error fields of
 * {@link MoldauClient#errorFields}); list gives each reassignment's replicas, adding and
 * removing replicas.
 */
final class PartitionsCommand {
    private PartitionsCommand() {}

    static int createPartitions(Args args) throws InterruptedException {
        String topic = args.positional(0, "topic name");
        int count = args.intOpt("count", -1);
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, Object> line = Json.obj("op", "create-partitions", "topic", topic);
            try {
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(count))).all().get();
                line.put("ok", true);
            } catch (ExecutionException e) {
                line.putAll(MoldauClient.errorFields(e));
            }
            Json.emit(line);
        });
    }

    static int alter(Args args) throws InterruptedException {
        Map<TopicPartition, Optional<NewPartitionReassignment>> wanted = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : args.pairs("move").entrySet()) {
            List<Integer> replicas = new ArrayList<>();
            for (String b : e.getValue().split(",")) replicas.add(Integer.parseInt(b.trim()));
            wanted.put(AdminSupport.partition(e.getKey()), Optional.of(new NewPartitionReassignment(replicas)));
        }
        for (String c : args.all("cancel")) wanted.put(AdminSupport.partition(c), Optional.empty());
        return AdminSupport.withAdmin(args, admin -> {
            AlterPartitionReassignmentsResult result = admin.alterPartitionReassignments(wanted);
            Map<String, Object> partitions = new TreeMap<>();
            for (var e : result.values().entrySet()) {
                try {
                    e.getValue().get();
                    partitions.put(AdminSupport.name(e.getKey()), Json.obj("ok", true));
                } catch (ExecutionException ex) {
                    partitions.put(AdminSupport.name(e.getKey()), MoldauClient.errorFields(ex));
                }
            }
            Json.emit(Json.obj("op", "alter-reassignments", "ok", true, "partitions", partitions));
        });
    }

    static int list(Args args) throws InterruptedException {
        Set<TopicPartition> wanted = new HashSet<>();
        for (String p : args.all("partition")) wanted.add(AdminSupport.partition(p));
        return AdminSupport.withAdmin(args, admin -> {
            Map<String, Object> line = Json.obj("op", "list-reassignments");
            try {
                Map<TopicPartition, PartitionReassignment> found = wanted.isEmpty()
                        ? admin.listPartitionReassignments().reassignments().get()
                        : admin.listPartitionReassignments(wanted).reassignments().get();
                Map<String, Object> out = new TreeMap<>();
                for (var e : found.entrySet()) {
                    out.put(AdminSupport.name(e.getKey()), Json.obj(
                            "replicas", e.getValue().replicas(),
                            "adding", e.getValue().addingReplicas(),
                            "removing", e.getValue().removingReplicas()));
                }
                line.put("ok", true);
                line.put("reassignments", out);
            } catch (ExecutionException e) {
                line.putAll(MoldauClient.errorFields(e));
            }
            Json.emit(line);
        });
    }
}
