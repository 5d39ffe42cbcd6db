import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.common.protocol.Errors;

/**
 * The command loop of the long-lived drivers (ClusterShell, GroupDriver): one tab-separated
 * command per stdin line, one JSON answer per command ({"op":..,"ok":..}, or the error of
 * {@link #err}); returns when stdin closes.
 */
final class CommandShell {
    private CommandShell() {}

    interface Command {
        void run(String[] args, Map<String, Object> out) throws Exception;
    }

    /** A failure as JSON: the cause of an ExecutionException, its Kafka error and message. */
    static Map<String, Object> err(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof CompletionException) && t.getCause() != null) t = t.getCause();
        return Json.obj("ok", false, "error", t.getClass().getSimpleName(), "error_code", Errors.forException(t).name(), "message", t.getMessage());
    }

    static void serve(Command command) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] a = line.split("\t", -1);
            Map<String, Object> out = Json.obj("op", a[0]);
            try {
                command.run(a, out);
                if (!out.containsKey("ok")) out.put("ok", true);
            } catch (Throwable t) {
                out.putAll(err(t));
            }
            Json.emitNow(out);
        }
    }
}
