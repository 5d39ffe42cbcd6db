import java.time.Duration;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * What the driver's admin commands share: the Admin client built from the command line
 * ({@code --timeout-ms} bounds each call, default 30 s, one request at most 30 s), closed after
 * the command, and the {@code TOPIC:PARTITION} notation of partitions.
 */
final class AdminSupport {
    private AdminSupport() {}

    /** A command's work with its Admin client. */
    interface AdminBody {
        void run(Admin admin) throws InterruptedException;
    }

    static Admin open(Args args) {
        Properties p = args.clientProperties();
        int timeoutMs = args.intOpt("timeout-ms", 30_000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(Math.min(timeoutMs, 30_000)));
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(timeoutMs));
        args.applyExtraProperties(p);
        args.checkAllUsed();
        return Admin.create(p);
    }

    /** Runs {@code body} with a new Admin client and closes it; the command's exit code (0). */
    static int withAdmin(Args args, AdminBody body) throws InterruptedException {
        Admin admin = open(args);
        try {
            body.run(admin);
        } finally {
            admin.close(Duration.ofSeconds(5));
        }
        return 0;
    }

    static TopicPartition partition(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) throw new Args.UsageException("wants TOPIC:PARTITION, got " + text);
        return new TopicPartition(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    }

    static String name(TopicPartition tp) {
        return tp.topic() + ":" + tp.partition();
    }
}
